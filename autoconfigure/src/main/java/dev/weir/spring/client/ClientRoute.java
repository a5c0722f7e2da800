package dev.weir.spring.client;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * One route of {@code weir.client.routes}: outgoing requests to its scheme, host and port whose path
 * matches its pattern and whose method it lists (any when none) are guarded as {@link #resource()}.
 *
 * <p>Hosts compare case-insensitively and exactly (no wildcards, no DNS: {@code localhost} is not
 * {@code 127.0.0.1}), but for one trailing dot: {@code payments.example.com.} is the same host as
 * {@code payments.example.com}, to DNS and to a route, written either way on either side. A host with
 * {@code _} (a Docker Compose or Kubernetes service name such as {@code rates_partner}) is a valid
 * host: {@link URI#getHost()} is null for it (the URI's authority is registry-based), so the host and
 * port are then read from the raw authority, less any user information. A port left out of the route
 * or the request is the scheme's ({@code 80}, {@code 443}). The pattern is matched against the request's raw path, not decoded; an empty path is
 * {@code /}. Methods are matched exactly: unlike inbound routes, {@code GET} does not also match
 * {@code HEAD}, since an outgoing {@code HEAD} is the application's own choice, not a server's way of
 * answering a {@code GET}.
 *
 * @param resource the resource matched requests are guarded as
 * @param scheme {@code http} or {@code https}
 * @param host the host, lower case, as written ({@code [::1]} for an IPv6 literal)
 * @param port the port, the scheme's default when the route gave none
 * @param pattern the path pattern
 * @param methods the methods, upper case; empty for all
 */
public record ClientRoute(String resource, String scheme, String host, int port, PathPattern pattern,
    Set<String> methods) {

  /**
   * The names a client route's key expressions give its arguments, as for inbound routes: a
   * {@link dev.weir.spring.web.RequestView} of the outgoing request, then the principal's name, which
   * is always null for an outgoing request.
   */
  public static final List<String> ARGUMENT_NAMES = dev.weir.spring.web.Route.ARGUMENT_NAMES;

  /** Copies the methods. */
  public ClientRoute {
    methods = Set.copyOf(methods);
  }

  /**
   * Parses a route's {@code url}: {@code scheme://host[:port]} and a path pattern.
   *
   * @throws IllegalArgumentException naming what is wrong with {@code url}
   */
  public static ClientRoute parse(String resource, String url, Set<String> methods) {
    if (url.length() > 2048) {
      throw new IllegalArgumentException("is longer than 2048 characters");
    }
    int schemeEnd = url.indexOf("://");
    if (schemeEnd < 0) {
      throw new IllegalArgumentException("must be scheme://host[:port]/path-pattern, e.g. https://api.example.com/**,"
          + " was '" + url + "'");
    }
    String scheme = url.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("must start with http:// or https://, was '" + url + "'");
    }
    int authorityStart = schemeEnd + 3;
    int pathStart = url.indexOf('/', authorityStart);
    String authority = pathStart < 0 ? url.substring(authorityStart) : url.substring(authorityStart, pathStart);
    String path = pathStart < 0 ? "/**" : url.substring(pathStart);
    if (authority.indexOf('@') >= 0 || authority.indexOf('?') >= 0 || authority.indexOf('#') >= 0) {
      throw new IllegalArgumentException("must name a host without user information, query or fragment, was '"
          + url + "'");
    }
    String host = authority;
    int port = defaultPort(scheme);
    int close = authority.indexOf(']');
    int colon = !authority.startsWith("[") ? authority.lastIndexOf(':') : close < 0 ? -1 : authority.indexOf(':', close);
    if (colon >= 0) {
      host = authority.substring(0, colon);
      port = port(authority.substring(colon + 1), url);
    }
    if (host.endsWith(".") && !host.startsWith("[")) {
      host = host.substring(0, host.length() - 1); // the fully qualified form names the same host
    }
    if (host.isEmpty() || !validHost(host)) {
      throw new IllegalArgumentException("must name a host (letters, digits, '.', '-', '_', or an IPv6 literal in [ ];"
          + " no empty label), was '" + url + "'");
    }
    if (path.indexOf('?') >= 0 || path.indexOf('#') >= 0) {
      throw new IllegalArgumentException("must end with a path pattern, without query or fragment, was '" + url + "'");
    }
    PathPattern pattern;
    try {
      pattern = PathPatternParser.defaultInstance.parse(path);
    } catch (PatternParseException invalid) {
      throw new IllegalArgumentException("has no valid path pattern: " + invalid.toDetailedString().replace('\n', ' '));
    }
    return new ClientRoute(resource, scheme, host.toLowerCase(Locale.ROOT), port, pattern, methods);
  }

  private static int port(String text, String url) {
    if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException("must have a port from 1 to 65535 after the host, was '" + url + "'");
    }
    int port = Integer.parseInt(text);
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("must have a port from 1 to 65535 after the host, was '" + url + "'");
    }
    return port;
  }

  private static boolean validHost(String host) {
    if (host.startsWith("[")) {
      return host.endsWith("]") && host.length() > 2
          && host.substring(1, host.length() - 1).chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
    }
    return !host.startsWith(".") && !host.endsWith(".") && !host.contains("..")
        && host.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '.' || c == '-' || c == '_');
  }

  private static final int INVALID_PORT = -2;

  /** The port of a raw authority: -1 when empty (the scheme's), {@link #INVALID_PORT} when not a port. */
  private static int requestPort(String text) {
    if (text.isEmpty()) {
      return -1;
    }
    if (text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return INVALID_PORT;
    }
    return Integer.parseInt(text);
  }

  /** Whether a request's {@code host} is this route's: case-insensitive, one trailing dot ignored. */
  private boolean sameHost(String requestHost) {
    int length = requestHost.endsWith(".") ? requestHost.length() - 1 : requestHost.length();
    return length == host.length() && requestHost.regionMatches(true, 0, host, 0, length);
  }

  private static int defaultPort(String scheme) {
    return scheme.equals("https") ? 443 : 80;
  }

  /** Returns the first of {@code routes} that matches a request of {@code method} to {@code uri}, or null. */
  public static @Nullable ClientRoute first(List<ClientRoute> routes, URI uri, String method) {
    int at = indexOfFirst(routes, uri, method);
    return at < 0 ? null : routes.get(at);
  }

  /**
   * Returns the index of the first of {@code routes} that matches a request of {@code method} to
   * {@code uri}, or -1: for a guard that keeps something per route beside the list.
   */
  public static int indexOfFirst(List<ClientRoute> routes, URI uri, String method) {
    if (routes.isEmpty()) {
      return -1;
    }
    String scheme = uri.getScheme();
    String host = uri.getHost();
    int port = uri.getPort();
    if (host == null) {
      // A registry-based authority (a host with '_', say): java.net.URI gives no host or port, but
      // the clients send to it all the same. Read both from the raw authority, less user information.
      String authority = uri.getRawAuthority();
      if (authority == null) {
        return -1;
      }
      authority = authority.substring(authority.lastIndexOf('@') + 1);
      int colon = authority.lastIndexOf(':');
      host = colon < 0 ? authority : authority.substring(0, colon);
      port = colon < 0 ? -1 : requestPort(authority.substring(colon + 1));
      if (port == INVALID_PORT) {
        return -1;
      }
    }
    if (scheme == null || host.isEmpty()) {
      return -1;
    }
    PathContainer path = null;
    for (int i = 0, size = routes.size(); i < size; i++) {
      ClientRoute route = routes.get(i);
      if (route.scheme.equalsIgnoreCase(scheme) && route.sameHost(host)
          && route.port == (port < 0 ? defaultPort(route.scheme) : port)
          && (route.methods.isEmpty() || route.methods.contains(method))) {
        if (path == null) {
          String raw = uri.getRawPath();
          path = PathContainer.parsePath(raw == null || raw.isEmpty() ? "/" : raw);
        }
        if (route.pattern.matches(path)) {
          return i;
        }
      }
    }
    return -1;
  }
}
