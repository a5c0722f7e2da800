package dev.weir;

/** The five kinds of {@link BlockException}, with the tag used in metrics and HTTP answers. */
enum BlockKind {
  FLOW("flow"),
  DEGRADE("degrade"),
  PARAM_FLOW("param-flow"),
  AUTHORITY("authority"),
  SYSTEM("system");

  final String tag;

  BlockKind(String tag) {
    this.tag = tag;
  }
}
