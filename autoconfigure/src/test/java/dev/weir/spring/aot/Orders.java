package dev.weir.spring.aot;

/** The interface a JDK proxy of {@link InterfacedService} implements. */
public interface Orders {

  String place(String item);
}
