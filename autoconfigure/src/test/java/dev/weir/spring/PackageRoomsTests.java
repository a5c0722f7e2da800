package dev.weir.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rooms of {@code dev.weir.spring}: each package directly below it, with its subpackages, is a
 * room, and the references between rooms, read from the imports and qualified names of the main
 * sources, form no cycle. The lower rooms never reach into {@code autoconfigure}, the property
 * model ({@code properties}) depends on no other room, and the rule sources ({@code rules}) on it
 * alone. The refusal observer ({@code observation}) depends on no other room either: the web stacks,
 * the advice and the outgoing-call guard ({@code client}) tell it of refusals.
 */
class PackageRoomsTests {

  private static final Path SOURCES = Path.of("src/main/java/dev/weir/spring");
  private static final Pattern REFERENCE = Pattern.compile("\\bdev\\.weir\\.spring\\.([a-z][a-z0-9_]*)\\.");

  /** Which rooms each room uses. */
  private static Map<String, Set<String>> uses;

  @BeforeAll
  static void readSources() throws IOException {
    uses = new TreeMap<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
        String room = SOURCES.relativize(file).getName(0).toString();
        Set<String> used = uses.computeIfAbsent(room, name -> new TreeSet<>());
        Matcher matcher = REFERENCE.matcher(code(Files.readString(file)));
        while (matcher.find()) {
          if (!matcher.group(1).equals(room)) {
            used.add(matcher.group(1));
          }
        }
      }
    }
  }

  /** Returns the source without comments, so that a Javadoc link is no reference. */
  private static String code(String source) {
    return source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
  }

  @Test
  void theSourcesWereRead() {
    assertThat(uses).containsKeys("autoconfigure", "properties", "actuate", "aop", "web", "webmvc", "webflux",
        "reactive", "metrics", "redis", "rules", "observation", "client");
    assertThat(uses.get("autoconfigure")).contains("properties", "aop", "actuate", "webmvc", "webflux");
    assertThat(uses.get("webmvc")).containsOnly("web", "observation");
    assertThat(uses.get("webflux")).containsOnly("web", "reactive", "observation");
    assertThat(uses.get("client")).containsOnly("web", "reactive", "observation");
    assertThat(uses.get("observation")).as("rooms the refusal observer uses").isEmpty();
    assertThat(uses.get("web")).as("rooms the shared web code uses").isEmpty();
  }

  @Test
  void noRoomReachesBackIntoItself() {
    List<List<String>> cycles = new ArrayList<>();
    for (String room : uses.keySet()) {
      List<String> path = new ArrayList<>();
      path.add(room);
      findCycle(room, room, path, new TreeSet<>(), cycles);
    }
    assertThat(cycles).as("cycles between packages of dev.weir.spring (room -> room it uses -> ...)").isEmpty();
  }

  private static void findCycle(String start, String at, List<String> path, Set<String> seen,
      List<List<String>> cycles) {
    for (String next : uses.getOrDefault(at, Set.of())) {
      if (next.equals(start)) {
        List<String> cycle = new ArrayList<>(path);
        cycle.add(start);
        cycles.add(cycle);
      } else if (seen.add(next)) {
        path.add(next);
        findCycle(start, next, path, seen, cycles);
        path.remove(path.size() - 1);
      }
    }
  }

  @Test
  void onlyTheAutoConfigurationsUseAutoconfigure() {
    uses.forEach((room, used) -> {
      if (!room.equals("autoconfigure")) {
        assertThat(used).as("rooms %s uses", room).doesNotContain("autoconfigure");
      }
    });
  }

  @Test
  void thePropertyModelStandsAlone() {
    assertThat(uses.get("properties")).as("rooms the property model uses").isEmpty();
    assertThat(uses.get("actuate")).as("rooms the endpoint uses").containsOnly("properties", "rules", "fleet");
    assertThat(uses.get("fleet")).as("rooms the rules store uses").containsOnly("properties", "rules");
    assertThat(uses.get("rules")).as("rooms the rule sources use").containsOnly("properties");
  }
}
