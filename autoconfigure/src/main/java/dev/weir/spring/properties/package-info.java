/**
 * The {@code weir.*} configuration as Spring Boot binds it ({@link dev.weir.spring.properties.WeirProperties}
 * and one property class per kind of rule, the same shape the {@code weir} actuator endpoint takes
 * posted rules in), its conversion to engine rules, and its validation
 * ({@link dev.weir.spring.properties.WeirPropertiesValidator}), every problem named by its property
 * path. Depends on the engine and Spring Boot's binding only: the auto-configurations and the
 * actuator endpoint use it, never the other way round.
 */
@NullMarked
package dev.weir.spring.properties;

import org.jspecify.annotations.NullMarked;
