package dev.weir.spring.routing;

import dev.weir.BlockException;

/** The annotation sits on the superclass' method. */
class InheritedService extends InheritedBase implements Services.Inherited {

  String inheritedBlocked(BlockException e) {
    return "inherited-handler";
  }
}
