package dev.weir.spring.routing;

import dev.weir.BlockException;
import dev.weir.DegradeException;
import dev.weir.FlowException;
import dev.weir.annotation.RateLimited;

/** blockHandler cases; calls refused by a rule run in origin "blocked" (see routing-test.yml). */
class BlockHandlersService implements Services.BlockHandlers {

  @Override
  @RateLimited(value = "rt.private", blockHandler = "privateBlocked")
  public String privateHandler(String id) {
    return "ok:" + id;
  }

  private String privateBlocked(String id, BlockException e) {
    return "private-handler:" + id + ":" + e.ruleKind().tag();
  }

  @Override
  @RateLimited(value = "rt.typed", blockHandler = "typedBlocked", fallback = "typedFallback")
  public String typed(String kind) {
    if (kind.equals("degrade")) {
      throw new DegradeException("downstream", null, 0); // a nested guarded call was refused
    }
    return "ok";
  }

  String typedBlocked(String kind, FlowException e) {
    return "flow-handler:" + e.resource();
  }

  String typedFallback(String kind, Throwable t) {
    return "fallback:" + t.getClass().getSimpleName();
  }

  @Override
  @RateLimited(value = "rt.overloaded", blockHandler = "onBlock")
  public String overloaded(String kind) {
    if (kind.equals("degrade")) {
      throw new DegradeException("downstream", null, 0);
    }
    return "ok";
  }

  protected String onBlock(String kind, FlowException e) {
    return "flow";
  }

  protected String onBlock(String kind, BlockException e) {
    return "any:" + e.ruleKind().tag();
  }

  String onBlock(String kind) { // not a block handler: no BlockException parameter; ignored
    return "wrong";
  }

  @Override
  @RateLimited(value = "rt.static", blockHandler = "blocked", blockHandlerClass = StaticHandlers.class,
      fallback = "failed", fallbackClass = StaticHandlers.class)
  public String staticHandlers(String id) {
    if (id.equals("fail")) {
      throw new IllegalStateException("boom");
    }
    return "ok:" + id;
  }

  @Override
  @RateLimited
  public String unhandled() {
    return "ok";
  }
}
