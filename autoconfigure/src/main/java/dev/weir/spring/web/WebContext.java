package dev.weir.spring.web;

/**
 * The Weir context of inbound HTTP requests. Spring MVC requests run in it on their thread
 * ({@code dev.weir.spring.webmvc.WeirContextFilter}); WebFlux requests carry it in their Reactor
 * context as a {@code dev.weir.spring.reactive.ReactiveContext}
 * ({@code dev.weir.spring.webflux.WeirContextWebFilter}). A {@code chain} rule with
 * {@code ref-resource: weir_web_context} therefore limits a resource only while it serves HTTP.
 */
public final class WebContext {

  /** The name of the context in which HTTP requests run: {@value}. */
  public static final String NAME = "weir_web_context";

  private WebContext() {
  }
}
