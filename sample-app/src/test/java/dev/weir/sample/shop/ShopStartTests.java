package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The shop's own start, as {@code spring-boot:run} makes it (its application.yml, on free ports):
 * Weir warns of nothing. A warning here would be a false one: every rule of the sample is for a
 * resource it uses, the gRPC method's included.
 */
@ExtendWith(OutputCaptureExtension.class)
class ShopStartTests {

  @Test
  void aCleanStartLogsNoWarningOfWeir(CapturedOutput output) {
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ShopApplication.class)
        .run("--server.port=0", "--shop.grpc.port=0", "--spring.main.banner-mode=off")) {
      assertThat(context.isRunning()).isTrue();
    }
    List<String> warnings = output.getOut().lines()
        .filter(line -> line.contains(" WARN ") && (line.contains(" d.w.") || line.contains(" dev.weir.")))
        .toList();
    assertThat(warnings).as("Weir's warnings at the shop's start").isEmpty();
  }
}
