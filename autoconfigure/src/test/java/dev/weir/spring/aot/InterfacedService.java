package dev.weir.spring.aot;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;

/** A guarded bean behind a JDK proxy, with a private blockHandler. */
public class InterfacedService implements Orders {

  @Override
  @RateLimited(blockHandler = "busy")
  public String place(String item) {
    return "placed " + item;
  }

  private String busy(String item, BlockException block) {
    return "busy " + item;
  }
}
