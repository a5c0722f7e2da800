package dev.weir.spring.aop;

import dev.weir.annotation.RateLimited;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.io.support.ResourcePatternResolver;
import org.springframework.core.io.support.ResourcePatternUtils;
import org.springframework.core.type.MethodMetadata;
import org.springframework.core.type.classreading.CachingMetadataReaderFactory;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.util.ClassUtils;

/**
 * Stops the start when a class of the application's packages (Spring Boot's auto-configuration
 * packages, those of its {@code @SpringBootApplication}) has a {@code @RateLimited} static method.
 * No proxy ever sees a static method's calls, so the annotation would silently guard nothing. A bean's
 * static methods are refused when the bean is inspected; this finds those of classes that are no
 * bean, among them every Kotlin top-level function (extension functions too), which compiles to a
 * static method of a file class.
 *
 * <p>Reads the class files with Spring's metadata readers (ASM: no class is loaded or initialized but
 * one whose class file shows such a method, loaded to tell it from a compiler's synthetic one and to
 * name it); the packages are those component scanning reads too. An
 * application without auto-configuration packages (a context built by hand) is not scanned.
 */
public final class StaticRateLimitedMethods implements SmartInitializingSingleton {

  private static final String ANNOTATION = RateLimited.class.getName();
  /** The name of Spring Boot's shared reader factory (its SharedMetadataReaderFactoryContextInitializer's BEAN_NAME). */
  private static final String SHARED_READERS = "org.springframework.boot.autoconfigure.internalCachingMetadataReaderFactory";

  private final BeanFactory beanFactory;
  private final ResourcePatternResolver resources;

  /**
   * Creates the check.
   *
   * @param beanFactory the context's bean factory, which holds the auto-configuration packages
   * @param resourceLoader the context's, to find the packages' class files
   */
  public StaticRateLimitedMethods(BeanFactory beanFactory, ResourceLoader resourceLoader) {
    this.beanFactory = beanFactory;
    this.resources = ResourcePatternUtils.getResourcePatternResolver(resourceLoader);
  }

  @Override
  public void afterSingletonsInstantiated() {
    if (!AutoConfigurationPackages.has(beanFactory)) {
      return;
    }
    MetadataReaderFactory readers = readers();
    for (String name : AutoConfigurationPackages.get(beanFactory)) {
      for (Resource classFile : classFiles(name)) {
        for (MethodMetadata annotated : annotatedMethods(readers, classFile)) {
          if (annotated.isStatic()) {
            refuseIfDeclared(annotated);
          }
        }
      }
    }
  }

  /*
   * Spring Boot's shared reader factory when there is one: component scanning of the same packages
   * has just read their class files through it, and it keeps what it read until the context is
   * refreshed, so they are not parsed twice. Else one of its own, kept for this check only.
   */
  private MetadataReaderFactory readers() {
    if (beanFactory.containsBean(SHARED_READERS)) {
      Object shared = beanFactory.getBean(SHARED_READERS);
      if (shared instanceof MetadataReaderFactory factory) {
        return factory;
      }
    }
    return new CachingMetadataReaderFactory(resources);
  }

  private Resource[] classFiles(String packageName) {
    try {
      return resources.getResources(ResourcePatternResolver.CLASSPATH_ALL_URL_PREFIX
          + ClassUtils.convertClassNameToResourcePath(packageName) + "/**/*.class");
    } catch (IOException unreadable) {
      return new Resource[0]; // component scanning of the same package reports it
    }
  }

  private static Iterable<MethodMetadata> annotatedMethods(MetadataReaderFactory readers, Resource classFile) {
    try {
      return readers.getMetadataReader(classFile).getAnnotationMetadata().getAnnotatedMethods(ANNOTATION);
    } catch (IOException | RuntimeException unreadable) {
      return List.of(); // not a class file ASM reads (a newer class version): nothing Spring would proxy either
    }
  }

  /*
   * The class file says a static method carries the annotation; the compiler may have put it there
   * on a method of its own making: Kotlin gives each open suspend function a static, synthetic
   * "name$suspendImpl" body that carries its annotations, while the function itself (a bean's
   * method) is guarded. The class files do not say what is synthetic, so the class is loaded (not
   * initialized) and only a static method that is neither synthetic nor a bridge is refused.
   */
  private void refuseIfDeclared(MethodMetadata annotated) {
    Class<?> type;
    try {
      type = ClassUtils.resolveClassName(annotated.getDeclaringClassName(), resources.getClassLoader());
    } catch (IllegalArgumentException unloadable) {
      return; // a class that cannot load (a missing optional library) is never called, guarded or not
    }
    Method method;
    try {
      method = staticMethod(type, annotated.getMethodName());
    } catch (LinkageError unlinkable) {
      return; // its methods name a class that is missing: nothing calls them either
    }
    if (method != null) {
      throw refused(type, method);
    }
  }

  private static RateLimitedDeclarationException refused(Class<?> type, Method method) {
    String where = HandlerResolver.describe(type, method);
    boolean kotlinFile = type.getSimpleName().endsWith("Kt");
    return new RateLimitedDeclarationException(type, method, "@RateLimited on " + where + " cannot take effect: the"
        + " method is static" + (kotlinFile ? " (a Kotlin top-level function, an extension function too, compiles to"
            + " a static method of its file's class)" : "")
        + ", and a static method is never called through a bean's proxy, so its calls would not be guarded.",
        "Make it a member function of a bean and call it through the bean, or guard its body with weir-kotlin's"
            + " guard or Weir.asyncEntry, or remove @RateLimited.");
  }

  private static @Nullable Method staticMethod(Class<?> type, String name) {
    for (Method method : type.getDeclaredMethods()) {
      if (method.getName().equals(name) && Modifier.isStatic(method.getModifiers()) && !method.isSynthetic()
          && !method.isBridge() && method.isAnnotationPresent(RateLimited.class)) {
        return method;
      }
    }
    return null;
  }
}
