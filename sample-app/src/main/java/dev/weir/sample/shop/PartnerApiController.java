package dev.weir.sample.shop;

import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The partner API under {@code /api/**}. Nothing here mentions Weir: the route of
 * {@code weir.web.routes} guards every request as resource {@code partnerApi}, limited per
 * {@code X-Api-Key} by a param-flow rule with a key expression (see application.yml).
 */
@RestController
class PartnerApiController {

  @GetMapping("/api/status")
  Map<String, String> status() {
    return Map.of("shop", "open");
  }
}
