package dev.weir.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.webflux.WeirWebFluxAutoConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * Spring's ahead-of-time processing of a WebFlux application with Weir: it completes, and the
 * generated bean definitions hold Weir's WebFlux beans (which reach nothing by reflection, so they
 * need no hints of their own).
 */
class WebFluxAotProcessingTests {

  @Test
  void theWebFluxBeansAreProcessedAheadOfTime() {
    AtomicReference<String> sources = new AtomicReference<>("");
    new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirWebFluxAutoConfiguration.class,
            WebFluxAutoConfiguration.class))
        .prepare(context -> {
          InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
          DefaultGenerationContext generation = new DefaultGenerationContext(
              new ClassNameGenerator(ClassName.get("dev.weir.spring.aot.generated", "WebFluxTest")), files);
          new ApplicationContextAotGenerator().processAheadOfTime(
              (GenericApplicationContext) context.getSourceApplicationContext(), generation);
          generation.writeGeneratedContent();
          StringBuilder all = new StringBuilder();
          files.getGeneratedFiles(Kind.SOURCE).values().forEach(source -> {
            try (var in = source.getInputStream()) {
              all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
          sources.set(all.toString());
        });
    assertThat(sources.get()).contains("weirBlockWebExceptionHandler", "weirContextWebFilter",
        "weirReactiveOriginResolver", "weirReactiveBlockResponseFactory");
  }
}
