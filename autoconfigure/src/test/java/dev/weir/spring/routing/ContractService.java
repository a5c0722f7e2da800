package dev.weir.spring.routing;

import dev.weir.BlockException;

/** The annotation sits on the interface method only. */
class ContractService implements Services.AnnotatedContract {

  @Override
  public String contract(String id) {
    return "ok:" + id;
  }

  String contractBlocked(String id, BlockException e) {
    return "contract-handler:" + id;
  }
}
