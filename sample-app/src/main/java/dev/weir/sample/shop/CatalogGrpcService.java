package dev.weir.sample.shop;

import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.springframework.stereotype.Component;

/**
 * The catalog over gRPC: the service {@code shop.Catalog} with one unary method,
 * {@code GetProduct}, taking a product id and answering {@code id|name|priceCents}. Written by hand
 * (plain strings as messages, no generated code) to keep the sample small. Weir guards it as the
 * resource {@code grpc:shop.Catalog/GetProduct} (see application.yml), through the interceptor that
 * {@link GrpcServer} puts in front of it.
 */
@Component
public final class CatalogGrpcService implements BindableService {

  /** Plain UTF-8 strings as messages. */
  public static final MethodDescriptor.Marshaller<String> STRINGS = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readNBytes(4096), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /** {@code shop.Catalog/GetProduct}. */
  public static final MethodDescriptor<String, String> GET_PRODUCT = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName(MethodDescriptor.generateFullMethodName("shop.Catalog", "GetProduct"))
      .setRequestMarshaller(STRINGS)
      .setResponseMarshaller(STRINGS)
      .build();

  private final Catalog catalog;

  CatalogGrpcService(Catalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder("shop.Catalog")
        .addMethod(GET_PRODUCT, ServerCalls.asyncUnaryCall(this::getProduct))
        .build();
  }

  private void getProduct(String id, StreamObserver<String> response) {
    catalog.byId(id).ifPresentOrElse(product -> {
      response.onNext(product.id() + "|" + product.name() + "|" + product.priceCents());
      response.onCompleted();
    }, () -> response.onError(Status.NOT_FOUND.withDescription("no product " + id).asRuntimeException()));
  }
}
