package dev.weir.spring.actuate;

import dev.weir.spring.properties.InputLimits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The body of {@code POST /actuator/weir/{resource}} as the write operation takes it, the same on
 * Spring MVC ({@link WeirEndpointRequestBodyAdvice}) and WebFlux ({@link WeirEndpointWebFilter}):
 * read within {@link InputLimits#MAX_BYTES} (a larger body is refused, 413, without reading more
 * than one byte past the limit), and turned into the operation's one argument {@code rules}, the
 * JSON text that {@link PostedRules} reads.
 *
 * <ul>
 *   <li>A JSON object, the contract's {@code {"flow": [...], ...}}: its text, with the query
 *       parameters added as keys (the endpoint refuses them as unknown kinds), so that no key of the
 *       body or the query can take the place of the path's resource or be dropped unseen.
 *   <li>{@code {"rules": "<JSON text>"}} and no query: the operation's argument as it is, the form
 *       the dashboard page posts; its text.
 *   <li>Anything else (malformed JSON, an array, a number, text): the body as text, so that the
 *       endpoint refuses it with a 400 that says why ({@code body: must be a JSON object ...}),
 *       never a bare 400 from a message converter.
 * </ul>
 */
final class PostedBody {

  /** The detail of the 413 answer to a body over the limit. */
  static final String TOO_LARGE = "the body is over " + InputLimits.MAX_BYTES_TEXT
      + ", the most the weir endpoint reads";

  private static final JsonMapper JSON = JsonMapper.builder(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(InputLimits.MAX_DEPTH).build())
      .build()).build();

  private PostedBody() {
  }

  /** Whether a request announcing {@code contentLength} bytes ({@code -1} for unknown) is over the limit. */
  static boolean announcesTooMuch(long contentLength) {
    return contentLength > InputLimits.MAX_BYTES;
  }

  /**
   * Reads a body, at most one byte more than the limit.
   *
   * @throws TooLargeException when it has more than {@link InputLimits#MAX_BYTES}
   */
  static byte[] read(InputStream body) throws IOException {
    byte[] bytes = body.readNBytes(InputLimits.MAX_BYTES + 1);
    if (bytes.length > InputLimits.MAX_BYTES) {
      throw new TooLargeException();
    }
    return bytes;
  }

  /** Returns the operation's {@code rules} argument for a body and the request's query parameters. */
  static String rulesArgument(byte[] body, Map<String, ? extends List<String>> query) {
    String text = new String(body, StandardCharsets.UTF_8);
    JsonNode tree;
    try {
      tree = JSON.readTree(body);
    } catch (RuntimeException notJson) {
      return text;
    }
    if (!(tree instanceof ObjectNode object)) {
      return text;
    }
    JsonNode rules = object.get("rules");
    if (object.size() == 1 && rules != null && rules.isString() && query.isEmpty()) {
      return rules.asString();
    }
    query.forEach((name, values) -> {
      if (!object.has(name)) {
        ArrayNode array = object.putArray(name);
        values.forEach(array::add);
      }
    });
    return JSON.writeValueAsString(object);
  }

  /** A body over {@link InputLimits#MAX_BYTES}: answered 413. */
  static final class TooLargeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    TooLargeException() {
      super(TOO_LARGE, null, false, false);
    }
  }
}
