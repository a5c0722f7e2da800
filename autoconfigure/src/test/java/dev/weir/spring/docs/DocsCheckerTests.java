package dev.weir.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DocsChecker} on pages written for the test, in a repository of its own: each check finds
 * what it must (a snippet that differs from its source, a Java fence without one, YAML that does not
 * bind or validate, a link or anchor that lands nowhere) and passes what is right.
 */
class DocsCheckerTests {

  private static final String SOURCE = """
      package x;

      class A {
        // tag::hello[]
        String hello(String name) {
          // tag::inner[]
          return "hello " + name;
          // end::inner[]
        }
        // end::hello[]
      }
      """;

  @TempDir
  Path root;

  private DocsChecker checker(String page) throws IOException {
    Files.createDirectories(root.resolve("docs"));
    Files.createDirectories(root.resolve("core/src/main/java/x"));
    Files.writeString(root.resolve("core/src/main/java/x/A.java"), SOURCE);
    Files.writeString(root.resolve("core/notes.java"), SOURCE);
    Files.writeString(root.resolve("docs/page.md"), page);
    Files.writeString(root.resolve("docs/other.md"), "# Other\n\n## Same\n\n## Same\n\n<a id=\"here\"></a>\n");
    return new DocsChecker(root);
  }

  private Path page() {
    return root.resolve("docs/page.md");
  }

  @Test
  void aSnippetThatIsItsRegionPassesAndOneThatDiffersIsNamedWithTheLine() throws IOException {
    DocsChecker same = checker("""
        [A.java](../core/src/main/java/x/A.java) <!-- snippet: hello -->
        ```java
            String hello(String name) {
              return "hello " + name;
            }
        ```
        """);
    assertThat(same.snippetProblems(page())).isEmpty();
    DocsChecker differs = checker("""
        [A.java](../core/src/main/java/x/A.java) <!-- snippet: hello -->
        ```java
        String hello(String name) {
          return "hi " + name;
        }
        ```
        """);
    assertThat(differs.snippetProblems(page())).singleElement().asString()
        .contains("docs/page.md:2", "differs from core/src/main/java/x/A.java#hello", "at its line 2",
            "\"hi \" + name", "\"hello \" + name");
  }

  @Test
  void aJavaFenceNeedsACompiledSourceWithTheRegion() throws IOException {
    DocsChecker checker = checker("""
        ```java
        class Unchecked { }
        ```

        [A.java](../core/src/main/java/x/A.java) <!-- snippet: nowhere -->
        ```java
        class B { }
        ```

        [notes](../core/notes.java) <!-- snippet: hello -->
        ```java
        String hello(String name) {
          return "hello " + name;
        }
        ```

        [gone](../core/src/main/java/x/Gone.java) <!-- snippet: hello -->
        ```java
        class C { }
        ```
        """);
    assertThat(checker.snippetProblems(page())).satisfiesExactly(
        problem -> assertThat(problem).contains("page.md:1", "a Java snippet without its source"),
        problem -> assertThat(problem).contains("page.md:6", "no single region tag::nowhere[]"),
        problem -> assertThat(problem).contains("page.md:11", "must come from a compiled source"),
        problem -> assertThat(problem).contains("page.md:18", "is no file of this repository"));
  }

  @Test
  void aKotlinFenceNeedsACompiledKotlinSourceWithTheRegion() throws IOException {
    DocsChecker checker = checker("""
        ```kotlin
        fun unchecked() = 1
        ```

        [A.kt](../core/src/main/kotlin/x/A.kt) <!-- snippet: hello -->
        ```kotlin
        fun hello(name: String) = "hello " + name
        ```

        [A.java](../core/src/main/java/x/A.java) <!-- snippet: hello -->
        ```kotlin
        fun hello(name: String) = "hello " + name
        ```
        """);
    Files.createDirectories(root.resolve("core/src/main/kotlin/x"));
    Files.writeString(root.resolve("core/src/main/kotlin/x/A.kt"), """
        package x

        // tag::hello[]
        fun hello(name: String) = "hello " + name
        // end::hello[]
        """);
    assertThat(checker.snippetProblems(page())).satisfiesExactly(
        problem -> assertThat(problem).contains("page.md:1", "a Kotlin snippet without its source"),
        problem -> assertThat(problem).contains("page.md:11", "must come from a compiled source (src/main/kotlin"));
  }

  @Test
  void aJavaFenceMarkedUncheckedNeedsAReasonAndIsListed() throws IOException {
    DocsChecker checker = checker("""
        <!-- unchecked-java: needs a library no module has -->
        ```java
        class Shown { }
        ```

        <!-- unchecked-java: -->
        ```java
        class NoReason { }
        ```
        """);
    assertThat(checker.snippetProblems(page())).singleElement().asString()
        .contains("page.md:7", "a Java snippet without its source");
    assertThat(checker.uncheckedJava(page())).containsExactly("docs/page.md:2: needs a library no module has");
  }

  @Test
  void yamlAndJsonThatNothingBindsMustStillParse() throws IOException {
    DocsChecker checker = checker("""
        ```yaml
        management:
          endpoint:
            weir:
              access: unrestricted
        ```

        ```yaml
        management:
          endpoint: [unclosed
        ```

        ```json
        {"type": "urn:weir:block:flow", "status": 429}
        ```

        ```json
        {"type": "urn:weir:block:flow", "status": 429
        ```
        """);
    assertThat(checker.yamlProblems(page())).satisfiesExactly(
        problem -> assertThat(problem).contains("page.md:8", "is not valid YAML"),
        problem -> assertThat(problem).contains("page.md:17", "is not valid JSON"));
  }

  @Test
  void aLinkBrokenAcrossLinesIsAProblem() throws IOException {
    DocsChecker checker = checker("""
        See [the other
        page](other.md) and [this one](other.md), `[not a
        link` either.
        """);
    assertThat(checker.fenceProblems(page())).singleElement().asString()
        .contains("line 1", "a link broken across two lines");
  }

  @Test
  void aFenceWithoutALanguageIsAProblem() throws IOException {
    DocsChecker checker = checker("""
        ```
        @RateLimited("x") String hidden() { }
        ```
        """);
    assertThat(checker.fenceProblems(page())).singleElement().asString().contains("a fence without a language");
  }

  @Test
  void weirYamlMustBindAndValidateUnlessMarkedInvalid() throws IOException {
    DocsChecker checker = checker("""
        ```yaml
        weir:
          flow:
            - resource: a
              count: 5
          param-flow:
            - resource: api
              key: "#request.getHeader('X-Api-Key')"
              count: 5
              duration: 1m
          web:
            routes:
              - resource: api
                path: /api/**
        ```

        ```yaml
        weir:
          flow:
            - resource: a
              count: -5
        ```

        ```yaml
        weir:
          flow:
            - resource: a
              cuont: 5
        ```

        <!-- yaml: invalid -->
        ```yaml
        weir:
          flow:
            - resource: a
              count: 5
        ```

        <!-- yaml: invalid -->
        ```yaml
        weir:
          degrade:
            - resource: a
              strategy: error-ratio
              threshold: 1.5
        ```

        ```yaml
        weir:
          param-flow:
            - resource: api
              key: "#request.getAttribute('x')"
              count: 5
          web:
            routes:
              - resource: api
                path: /api/**
        ```
        """);
    assertThat(checker.yamlProblems(page())).satisfiesExactly(
        problem -> assertThat(problem).contains("page.md:17", "weir.flow[0].count: must be a number >= 0"),
        problem -> assertThat(problem).contains("page.md:24", "does not bind", "cuont"),
        problem -> assertThat(problem).contains("page.md:32", "marked invalid, but binds and validates"),
        problem -> assertThat(problem).contains("page.md:48", "weir.param-flow[0].key"));
  }

  @Test
  void clusterModeRulesValidateWithTheClusterOn() throws IOException {
    DocsChecker checker = checker("""
        ```yaml
        weir:
          cluster:
            enabled: true
          flow:
            - resource: a
              count: 5
              cluster-mode: true
        ```

        ```yaml
        weir:
          flow:
            - resource: a
              count: 5
              cluster-mode: true
        ```
        """);
    assertThat(checker.yamlProblems(page())).singleElement().asString()
        .contains("page.md:11", "weir.flow[0].cluster-mode", "weir.cluster.enabled");
  }

  @Test
  void ruleFilesAndSentinelFilesAreStartedAsTheApplicationWould() throws IOException {
    DocsChecker checker = checker("""
        <!-- yaml: rule-file -->
        ```yaml
        flow:
          - resource: checkout
            count: 80
        cleared:
          search: [flow]
        ```

        <!-- yaml: rule-file -->
        ```yaml
        flow:
          - resource: checkout
            count: -1
        ```

        <!-- json: sentinel-flow-file -->
        ```json
        [{"resource": "checkout", "count": 10, "grade": 1, "controlBehavior": 0}]
        ```

        <!-- json: sentinel-flow-file -->
        ```json
        [{"resource": "checkout", "count": 10, "controlBehavior": 5}]
        ```
        """);
    assertThat(checker.yamlProblems(page())).satisfiesExactly(
        problem -> assertThat(problem).contains("page.md:11", "flow[0].count"),
        problem -> assertThat(problem).contains("page.md:23", "[0].controlBehavior: must be 0 (reject)"));
  }

  @Test
  void linksMustLandOnAFileAndAnchorsOnAHeading() throws IOException {
    DocsChecker checker = checker("""
        # Page

        ## A `@RateLimited` heading: with punctuation!

        [fine](other.md) [fine](other.md#same-1) [fine](#a-ratelimited-heading-with-punctuation)
        [fine](other.md#here) [fine](../core/src/main/java/x/A.java) [fine](https://example.com/nowhere)
        `[in code](nowhere.md)`

        [missing](missing.md) [bad anchor](other.md#same-2) [bad local](#nothing)
        ![missing image](pic.png)

        ```text
        [in a fence](nowhere.md)
        ```
        """);
    assertThat(checker.linkProblems(page())).satisfiesExactly(
        problem -> assertThat(problem).contains("page.md:9: missing.md", "no such file"),
        problem -> assertThat(problem).contains("page.md:9: other.md#same-2", "no heading or anchor 'same-2'"),
        problem -> assertThat(problem).contains("page.md:9: #nothing", "no heading or anchor 'nothing'"),
        problem -> assertThat(problem).contains("page.md:10: pic.png", "no such file"));
  }

  @Test
  void slugsAreGithubs() {
    assertThat(Markdown.slug("Cluster mode: limits shared through Redis"))
        .isEqualTo("cluster-mode-limits-shared-through-redis");
    assertThat(Markdown.slug("`@RateLimited`")).isEqualTo("ratelimited");
    assertThat(Markdown.slug("With `@Transactional`")).isEqualTo("with-transactional");
    assertThat(Markdown.slug("Per-key limits and routes")).isEqualTo("per-key-limits-and-routes");
    assertThat(Markdown.slug("How fast, at 6000 resources")).isEqualTo("how-fast-at-6000-resources");
    assertThat(Markdown.slug("The [`weir`](x.md) endpoint")).isEqualTo("the-weir-endpoint");
    assertThat(Markdown.slug("Cost per call, 2 threads (both on one limiter)"))
        .isEqualTo("cost-per-call-2-threads-both-on-one-limiter");
    assertThat(Markdown.slug("Sentinel → Weir")).isEqualTo("sentinel--weir");
    assertThat(List.of(Markdown.parse("# A\n## A\n## A\n").anchors().toArray())).containsExactly("a", "a-1", "a-2");
  }
}
