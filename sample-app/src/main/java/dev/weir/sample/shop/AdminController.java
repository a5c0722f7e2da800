package dev.weir.sample.shop;

import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Live traffic per resource, for operators only (an authority rule allows the caller "ops"). */
@RestController
public class AdminController {

  private final Weir weir;

  AdminController(Weir weir) {
    this.weir = weir;
  }

  /** Passes and refusals of the last second and the circuit state, per resource. */
  @GetMapping("/admin/resources")
  @RateLimited("adminResources")
  public Map<String, String> resources() {
    Map<String, String> out = new TreeMap<>();
    for (String resource : weir.resources()) {
      ResourceStatistics stats = weir.statistics(resource);
      if (stats != null) {
        out.put(resource, "pass " + stats.passQps() + "/s, blocked " + stats.blockQps() + "/s, circuit "
            + stats.circuitState());
      }
    }
    return out;
  }
}
