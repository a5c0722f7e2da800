package dev.weir.spring.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.KeyExpressions.ParamKey;
import dev.weir.spring.web.Route;
import example.keys.Account;
import example.keys.Fixtures;
import example.keys.Order;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The key language: its grammar (literals and their escapes, Elvis, null, parentheses), names and
 * positions, members and indexes, what is refused when a rule is checked and with which message,
 * and what fails on a call (a null key, logged once).
 */
@ExtendWith(OutputCaptureExtension.class)
class KeyLanguageTests {

  private static final Map<String, KeyArguments> RESOURCES = Map.of(
      "place", new KeyArguments(List.of("order", "apiKey"), List.of(Order.class, String.class)),
      "any", new KeyArguments(List.of("thing", "other"), List.of(Object.class, Object.class)),
      "account", new KeyArguments(List.of("account"), List.of(Account.class)),
      "route", new KeyArguments(Route.ARGUMENT_NAMES, Route.ARGUMENT_TYPES),
      "servlet", new KeyArguments(List.of("request"), List.of(HttpServletRequest.class)),
      "many", new KeyArguments(List.of("items", "labels", "ids", "count"),
          List.of(List.class, Map.class, int[].class, int.class)));

  private final KeyLanguage keys = new KeyLanguage(RESOURCES::get);

  private final Order order = Order.of("c-7");
  private final Object[] placeArgs = {order, "k-1"};
  private final FixedView view = new FixedView(Map.of("X-Api-Key", "key-1"), Map.of("tenant", "t-1"));

  private @Nullable Object key(String resource, String expression, Object... args) {
    return keys.compile(resource, expression).keyOf(args);
  }

  private void refused(String resource, String expression, String... reason) {
    assertThatThrownBy(() -> keys.compile(resource, expression)).as(expression)
        .isInstanceOf(IllegalArgumentException.class).message().contains(reason);
  }

  @Test
  void argumentsByNamePositionAndAll() {
    assertThat(key("place", "#apiKey", placeArgs)).isEqualTo("k-1");
    assertThat(key("place", "#p1", placeArgs)).isEqualTo("k-1");
    assertThat(key("place", "#a0", placeArgs)).isSameAs(order);
    assertThat(key("place", "#args", placeArgs)).isSameAs(placeArgs);
    assertThat(key("place", "#args.length", placeArgs)).isEqualTo(2);
    assertThat(key("place", "#args[1]", placeArgs)).isEqualTo("k-1");
    assertThat(key("any", "#thing", "x", "y")).isEqualTo("x");
    refused("place", "#nope", "#nope is no argument of 'place': its arguments are [order, apiKey]");
    refused("place", "#p2", "#p2 is past the arguments of 'place', which has 2: [order, apiKey]");
    refused("place", "#root", "#root is SpEL's");
    refused("place", "#this", "#this is SpEL's");
  }

  @Test
  void aParameterNamedLikeAPositionWins() {
    KeyLanguage named = new KeyLanguage(resource -> KeyArguments.named(List.of("a1", "p0")));
    assertThat(named.compile("r", "#p0").keyOf(new Object[] {"first", "second"})).isEqualTo("second");
    assertThat(named.compile("r", "#a0").keyOf(new Object[] {"first", "second"})).isEqualTo("first");
  }

  @Test
  void literalsAndTheirEscapes() {
    assertThat(key("place", "'#apiKey is ''text'''", placeArgs)).isEqualTo("#apiKey is 'text'");
    assertThat(key("place", "\"say \"\"hi\"\" + 'x'\"", placeArgs)).isEqualTo("say \"hi\" + 'x'");
    assertThat(key("place", "'it''s' + \"\"", placeArgs)).isEqualTo("it's");
    assertThat(key("place", "''", placeArgs)).isEqualTo("");
    assertThat(key("place", "42", placeArgs)).isEqualTo(42);
    assertThat(key("place", "2147483647", placeArgs)).isEqualTo(Integer.MAX_VALUE);
    assertThat(key("place", "null", placeArgs)).isNull();
    assertThat(key("place", "  ( #apiKey )  ", placeArgs)).isEqualTo("k-1");
    refused("place", "2147483648", "larger than 2147483647");
    refused("place", "1.5", "not a whole number");
    refused("place", "'open", "the text opened at position 0 is not closed (write '' for a ' inside it)");
    refused("place", "\"open", "the text opened at position 0 is not closed");
  }

  @Test
  void concatenationElvisAndNull() {
    assertThat(key("place", "#p0.customerId + ':' + #apiKey", placeArgs)).isEqualTo("c-7:k-1");
    assertThat(key("place", "#order.lines + '/' + #order.region + '/' + #order.large", placeArgs))
        .isEqualTo("3/EU/false");
    assertThat(key("place", "#apiKey + ':' + #order.customerId", null, "k")).as("a null part").isNull();
    assertThat(key("place", "#apiKey + ':' + #order?.customerId", order, null)).isNull();
    assertThat(key("place", "#apiKey ?: 'anonymous'", order, null)).isEqualTo("anonymous");
    assertThat(key("place", "#apiKey ?: #order.customerId ?: 'x'", order, null)).isEqualTo("c-7");
    assertThat(key("place", "#apiKey ?: null", order, null)).isNull();
    assertThat(key("place", "(#apiKey ?: 'none') + '!'", order, null)).isEqualTo("none!");
    UUID id = UUID.randomUUID();
    assertThat(key("any", "#thing + ''", id, null)).isEqualTo(id.toString());
    assertThat(key("any", "#thing + ''", Fixtures.hiddenOrder("h"), null)).as("an application's toString")
        .isEqualTo("HiddenOrder[customerId=h]");
  }

  @Test
  void membersOfTheApplicationsObjects() {
    assertThat(key("place", "#order.customerId", placeArgs)).isEqualTo("c-7");
    assertThat(key("place", "#order.customerId()", placeArgs)).isEqualTo("c-7");
    assertThat(key("place", "#order.channel", placeArgs)).isEqualTo("web");
    assertThat(key("place", "#order.getChannel()", placeArgs)).isEqualTo("web");
    assertThat(key("place", "#order.large", placeArgs)).isEqualTo(false);
    assertThat(key("place", "#order.isLarge()", placeArgs)).isEqualTo(false);
    assertThat(key("place", "#order.region", placeArgs)).isEqualTo(Order.Region.EU);
    assertThat(key("any", "#thing.customerId", Fixtures.hiddenOrder("h-1"), null)).as("a package-private record")
        .isEqualTo("h-1");
    assertThat(key("account", "#account.id", new Account("a-1"))).isEqualTo("a-1");
    assertThat(key("account", "#account.tier", new Account.Premium("a-2"))).as("a subclass's accessor, per call")
        .isEqualTo("gold");
    assertThat(key("account", "#account.tier", new Account("a-3"))).as("the class has none: a null key").isNull();
  }

  @Test
  void indexesOfArraysListsAndMaps() {
    assertThat(key("place", "#order.tags[1]", placeArgs)).isEqualTo("b");
    assertThat(key("place", "#order.labels['k']", placeArgs)).isEqualTo("v");
    assertThat(key("place", "#order.labels[\"missing\"]", placeArgs)).isNull();
    assertThat(key("place", "#order.codes[0] + #order.codes.length", placeArgs)).isEqualTo("x2");
    Map<Object, String> byNumber = new HashMap<>();
    byNumber.put(7, "seven");
    assertThat(key("many", "#labels[7]", List.of(), byNumber, new int[0], 1)).isEqualTo("seven");
    assertThat(key("many", "#ids[1]", List.of(), Map.of(), new int[] {4, 5}, 1)).isEqualTo(5);
    assertThat(key("any", "#thing['a']", Map.of("a", "b"), null)).isEqualTo("b");
    assertThat(key("any", "#thing[0]", List.of("z"), null)).isEqualTo("z");
    assertThat(key("any", "#thing[3]", List.of("z"), null)).as("past the end: a null key").isNull();
    assertThat(key("any", "#thing['a']", List.of("z"), null)).as("a text index of a list").isNull();
    refused("many", "#items['a']", "#items['a'] (at position 6): #items is a list, indexed by a whole number");
    refused("many", "#ids['a']", "an array, indexed by a whole number");
    refused("place", "#apiKey[0]", "#apiKey is a java.lang.String: [...] applies to arrays, lists and maps only");
    refused("many", "#count[0]", "is a java.lang.Integer");
    refused("place", "#order[0]", "is a example.keys.Order: [...] applies to arrays, lists and maps only");
  }

  @Test
  void stringMethodsAreLinearAndLocaleIndependent() {
    Locale before = Locale.getDefault();
    Locale.setDefault(Locale.forLanguageTag("tr"));
    try {
      assertThat(key("any", "#thing.toLowerCase()", "TITLE", null)).as("Locale.ROOT, not Turkish").isEqualTo("title");
      assertThat(key("any", "#thing.toUpperCase()", "title", null)).isEqualTo("TITLE");
    } finally {
      Locale.setDefault(before);
    }
    assertThat(key("place", "#apiKey.trim().length()", order, "  abc ")).isEqualTo(3);
    assertThat(key("place", "#apiKey.substring(2)", order, "abcdef")).isEqualTo("cdef");
    assertThat(key("place", "#apiKey.substring(1, 3)", order, "abcdef")).isEqualTo("bc");
    assertThat(key("place", "#apiKey.substring(0, 8)", order, "abc")).as("clamped to the string").isEqualTo("abc");
    assertThat(key("place", "#apiKey.substring(5, 2)", order, "abcdef")).as("end before begin").isEqualTo("");
    assertThat(key("place", "#apiKey.substring(#order.lines)", order, "abcdef")).isEqualTo("def");
    refused("place", "#apiKey.matches('(.*a){12}b')", "#apiKey.matches('(.*a){12}b') (at position 8): #apiKey is a"
        + " String, whose methods here are toLowerCase(), toUpperCase(), trim(), length() and substring(begin[, end])");
    refused("place", "'x'.repeat(200000000)", "'x' is a String, whose methods here are");
    refused("place", "#apiKey.getBytes()", "whose methods here are");
    refused("place", "#apiKey.length", "(write length())");
    refused("place", "#apiKey.substring('a')", "argument 1 of substring must be a whole number, and this is a String");
    refused("place", "#apiKey.substring(1, 2, 3)", "whose methods here are");
  }

  @Test
  void theRequestViewHasItsFiveReadsOnly() {
    assertThat(key("route", "#request.getHeader('X-Api-Key')", view, null)).isEqualTo("key-1");
    assertThat(key("route", "#request.getParameter('tenant')", view, null)).isEqualTo("t-1");
    assertThat(key("route", "#request.getMethod() + ' ' + #request.requestURI + ' ' + #request.remoteAddr", view,
        null)).isEqualTo("GET /api/orders 10.0.0.7");
    assertThat(key("route", "#request.getHeader('X-Other') ?: #principal ?: 'anonymous'", view, "alice"))
        .isEqualTo("alice");
    assertThat(key("route", "#p0.getHeader('X-Api-Key').toLowerCase()", view, null)).isEqualTo("key-1");
    refused("route", "#request.headers.getFirst('X-Api-Key')", "#request.headers (at position 9): #request is a"
        + " read-only view of the request with getHeader(name), getParameter(name), getMethod(), getRequestURI()"
        + " and getRemoteAddr()", "for a header write #request.getHeader('X-Api-Key')");
    refused("route", "#request.nativeRequest", "#request.nativeRequest (at position 9): #request is a read-only view");
    refused("route", "#request.getNativeRequest().close()", "never the request itself");
    refused("route", "#request.getServletContext().getAttribute('org.apache.tomcat.InstanceManager')",
        "#request.getServletContext() (at position 9)");
    refused("route", "#request.secret", "read-only view");
    refused("route", "#request.getClass()", "read-only view");
    refused("route", "#request.getHeader()", "read-only view");
    refused("route", "#request.getHeader(1)", "argument 1 of getHeader must be a text (the name)");
    refused("route", "#request['X-Api-Key']", "[...] applies to arrays, lists and maps only");
    refused("route", "#request", "the key would be the request view itself");
    refused("route", "#args", "a route's #args holds the request view");
    refused("route", "#request + ''", "is the request view: join one of its reads");
    refused("route", "#principal.name", "#principal is a String, whose methods here are");
  }

  @Test
  void whatTheDeclaredTypesLeaveOpenIsDecidedPerCallByTheSameRules() {
    assertThat(key("any", "#thing.getHeader('X-Api-Key')", view, null)).isEqualTo("key-1");
    assertThat(key("any", "#thing.secret", view, null)).as("the view's other methods").isNull();
    assertThat(key("any", "#thing.class", order, null)).as("getClass()").isNull();
    assertThat(key("any", "#thing.getClass()", order, null)).isNull();
    assertThat(key("any", "#thing.empty", new HashMap<>(), null)).as("a platform object").isNull();
    assertThat(key("any", "#thing.contextClassLoader", Thread.currentThread(), null)).isNull();
    assertThat(key("any", "#thing.contextClassLoader", Fixtures.worker(), null))
        .as("an application's class inheriting a platform accessor").isNull();
    assertThat(key("any", "#thing.task", Fixtures.worker(), null)).isEqualTo("task");
    assertThat(key("any", "#thing.supplier.get()", Fixtures.holder(() -> "s"), null)).as("a lambda").isNull();
    assertThat(key("any", "#thing.value", Fixtures.broken(), null)).as("an accessor that throws").isNull();
    assertThat(key("any", "#thing + ''", new Object[0], null)).as("an array joined").isNull();
    assertThat(key("any", "#thing + ''", Thread.currentThread(), null)).as("a platform object joined").isNull();
    assertThat(key("any", "#thing", view, null)).as("the view itself").isNull();
    assertThat(key("any", "#thing.toUpperCase()", 5, null)).isNull();
    assertThat(key("any", "#thing.length", "text", null)).as("a String has no .length").isNull();
    assertThat(key("any", "#thing.label('k')", order, null)).as("a method with an argument").isNull();
  }

  @Test
  void aProxyIsReadThroughTheClassItWasMadeFrom() {
    ProxyFactory factory = new ProxyFactory(new Account("a-9"));
    factory.setProxyTargetClass(true);
    Object proxy = factory.getProxy();
    assertThat(proxy.getClass().getName()).contains("$$");
    assertThat(key("any", "#thing.id", proxy, null)).isEqualTo("a-9");
    assertThat(key("any", "#thing.callbacks", proxy, null)).as("the proxy's own plumbing").isNull();
    assertThat(key("any", "#thing.targetSource", proxy, null)).isNull();
  }

  @Test
  void whatTheDeclaredTypesMakeCertainIsRefusedWhenChecked() {
    refused("place", "#order.class", "getClass() of Order is declared by java.lang.Object");
    refused("place", "#order.getClass()", "getClass() of Order is declared by java.lang.Object");
    refused("place", "#order.custmerId", "#order.custmerId (at position 7): Order has no accessor 'custmerId'");
    refused("place", "#order.label('k')", "an accessor takes none");
    refused("place", "#order.hashCode()", "Order has no accessor 'hashCode'()");
    refused("place", "#order.toString()", "has no accessor 'toString'()");
    refused("servlet", "#request.servletContext", "#request is a jakarta.servlet.http.HttpServletRequest, a platform"
        + " or framework type: a key reads no member of it");
    refused("servlet", "#request.getHeader('X')", "a platform or framework type");
    refused("place", "#order.tags.size()", "#order.tags is a java.util.List, a platform or framework type");
    refused("place", "#order.region.name()", "Region has no accessor 'name'()"); // an enum's name() is Enum's
    refused("place", "#order.codes.clone()", "is an array, whose only member is .length");
    refused("place", "#order.tags + ''", "is a java.util.List, which + does not join");
    refused("many", "#count.value", "is a java.lang.Integer, a platform or framework type");
  }

  @Test
  void syntaxErrorsAndCodeAreRefusedWithTheirPosition() {
    refused("place", "", "is empty");
    refused("place", "   ", "is empty");
    refused("place", "#order.(", "unexpected '(' at position 7 where a member's name was expected after '.'");
    refused("place", "#order.customerId)", "unexpected ')' at position 17 after a complete expression");
    refused("place", "(#apiKey", "ends where ')' was expected to close the parenthesis opened at position 0");
    refused("place", "#apiKey +", "ends where a value was expected");
    refused("place", "#", "after '#', where an argument's name was expected");
    refused("place", "apiKey", "'apiKey' at position 0 is not a value: an argument is named with # (#apiKey)");
    refused("place", "T(java.lang.Runtime).getRuntime()", "type references T(...) are not part of the key language");
    refused("place", "new java.io.File(#apiKey)", "constructors are not part of the key language");
    refused("place", "@someBean.key()", "unexpected '@' at position 0", "bean references are not part");
    refused("place", "#apiKey = 'x'", "unexpected '=' at position 8", "no operators but + (joins text) and ?:");
    refused("place", "!#apiKey", "unexpected '!' at position 0");
    refused("place", "#apiKey == 'a' ? 'b' : 'c'", "unexpected '='");
    refused("place", "#order.tags.?[true]", "where a member's name was expected");
    refused("place", "{1, 2}", "inline lists and maps are not part");
    refused("place", "#order.tags[#apiKey]", "where an index was expected: a quoted text (a map's key) or a whole"
        + " number");
    refused("place", "#order.tags[0", "where ']' was expected to close the index opened at position 11");
    refused("place", "#apiKey.substring(1", "where ')' was expected to close the arguments opened at position 17");
    refused("place", "#apiKey\u0000", "unexpected character U+0000 at position 7");
  }

  @Test
  void lengthAndNestingAreBoundedBeforeAnythingRuns() {
    refused("place", "'" + "x".repeat(999) + "'", "is 1001 characters long; a key expression has at most 1000");
    assertThat(key("place", "'" + "x".repeat(998) + "'", placeArgs)).asString().hasSize(998);
    refused("place", "!".repeat(9000) + "#apiKey", "is 9007 characters long");
    refused("place", "#apiKey" + ".trim()".repeat(40), "nests deeper than 32 levels");
    assertThat(key("place", "#apiKey" + ".trim()".repeat(31), placeArgs)).isEqualTo("k-1");
    refused("place", "(".repeat(490) + "#apiKey" + ")".repeat(490), "nests deeper than 32 levels at position 32");
    assertThat(key("place", "(".repeat(31) + "#apiKey" + ")".repeat(31), placeArgs)).isEqualTo("k-1");
    refused("place", "#apiKey.substring(".repeat(40) + "1" + ")".repeat(40), "nests deeper than 32 levels");
    refused("place", "(".repeat(999), "nests deeper than 32 levels");
  }

  @Test
  void aFailingExpressionGivesANullKeyLoggedOnce(CapturedOutput output) {
    ParamKey key = keys.compile("place", "#order.customerId");
    assertThat(key.keyOf(new Object[] {null, "k"})).isNull();
    assertThat(key.keyOf(new Object[] {null, "k"})).isNull();
    assertThat(key.keyOf(new Object[] {order, "k"})).isEqualTo("c-7");
    assertThat(key.keyOf(new Object[0])).as("fewer arguments than named").isNull();
    assertThat(output.getAll()).containsOnlyOnce("Key expression '#order.customerId' failed")
        .contains("#order is null, so #order.customerId has no value (write ?. where a value may be null)");
    assertThat(keys.compile("place", "#order?.customerId").keyOf(new Object[] {null, "k"})).isNull();
    assertThat(keys.compile("place", "#order?.customerId?.trim()").keyOf(new Object[] {null, "k"})).isNull();
  }

  @Test
  void anUnknownResourceWaitsForItsNamesUntilSealed(CapturedOutput output) {
    ParamKey deferred = keys.compile("later", "#whatever");
    assertThat(keys.compile("later", "#p0").keyOf(new Object[] {"x"})).isEqualTo("x");
    assertThat(keys.compile("later", "#p0.anything").keyOf(new Object[] {"x"})).as("types unknown: per call")
        .isNull();
    refused("later", "#whatever.(", "unexpected '('"); // syntax is checked at once
    keys.seal();
    refused("later", "#whatever", "by position only");
    // The name never became known: its calls count as a null key, with an error logged (not thrown at the caller).
    assertThat(deferred.keyOf(new Object[] {"x"})).isNull();
    assertThat(output.getAll()).contains("Key expression '#whatever' of 'later' is invalid now that the arguments");
  }
}
