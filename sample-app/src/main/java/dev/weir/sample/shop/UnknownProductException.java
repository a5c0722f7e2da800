package dev.weir.sample.shop;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/** The product of an order does not exist: the caller's mistake, answered with 404. */
@ResponseStatus(HttpStatus.NOT_FOUND)
public class UnknownProductException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  UnknownProductException(String productId) {
    super("No product " + productId);
  }
}
