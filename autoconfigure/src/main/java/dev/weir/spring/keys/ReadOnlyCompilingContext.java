package dev.weir.spring.keys;

import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.ConstructorResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.IndexAccessor;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.OperatorOverloader;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypeComparator;
import org.springframework.expression.TypeConverter;
import org.springframework.expression.TypeLocator;
import org.springframework.expression.TypedValue;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * A read-only {@link SimpleEvaluationContext} (properties, indexes, instance methods) that lets
 * SpEL compile expressions. {@code SimpleEvaluationContext} itself refuses compilation, because
 * compiled code does not ask the context's resolvers again. Here that is safe: SpEL compiles only an
 * expression it has evaluated successfully, interpreted, in this context (so every property,
 * method and index it reaches was allowed by it), and compiled code specialised for the types it
 * saw falls back to interpreted evaluation, in this context, when other types come (mixed mode).
 * Type references, constructors, bean references, functions and assignments are refused before
 * any evaluation ({@link SpelKeyExpressions}).
 */
final class ReadOnlyCompilingContext implements EvaluationContext {

  private final EvaluationContext delegate =
      SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();

  @Override
  public boolean isCompilationSupported() {
    return true;
  }

  @Override
  public TypedValue getRootObject() {
    return delegate.getRootObject();
  }

  @Override
  public List<PropertyAccessor> getPropertyAccessors() {
    return delegate.getPropertyAccessors();
  }

  @Override
  public List<IndexAccessor> getIndexAccessors() {
    return delegate.getIndexAccessors();
  }

  @Override
  public List<ConstructorResolver> getConstructorResolvers() {
    return delegate.getConstructorResolvers();
  }

  @Override
  public List<MethodResolver> getMethodResolvers() {
    return delegate.getMethodResolvers();
  }

  @Override
  public @Nullable BeanResolver getBeanResolver() {
    return delegate.getBeanResolver();
  }

  @Override
  public TypeLocator getTypeLocator() {
    return delegate.getTypeLocator();
  }

  @Override
  public TypeConverter getTypeConverter() {
    return delegate.getTypeConverter();
  }

  @Override
  public TypeComparator getTypeComparator() {
    return delegate.getTypeComparator();
  }

  @Override
  public OperatorOverloader getOperatorOverloader() {
    return delegate.getOperatorOverloader();
  }

  @Override
  public TypedValue assignVariable(String name, Supplier<TypedValue> valueSupplier) {
    return delegate.assignVariable(name, valueSupplier);
  }

  @Override
  public void setVariable(String name, @Nullable Object value) {
    delegate.setVariable(name, value);
  }

  @Override
  public @Nullable Object lookupVariable(String name) {
    return delegate.lookupVariable(name);
  }

  @Override
  public boolean isAssignmentEnabled() {
    return delegate.isAssignmentEnabled();
  }
}
