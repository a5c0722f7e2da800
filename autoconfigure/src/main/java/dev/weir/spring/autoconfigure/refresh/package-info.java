/**
 * Auto-configuration of rule refresh through Spring Cloud's context, when it is on the classpath.
 */
@NullMarked
package dev.weir.spring.autoconfigure.refresh;

import org.jspecify.annotations.NullMarked;
