/**
 * The {@code weir.*} configuration as Spring Boot binds it ({@link dev.weir.spring.properties.WeirProperties}
 * and one property class per kind of rule, the same shape the {@code weir} actuator endpoint takes
 * posted rules in), its conversion to engine rules, and its validation
 * ({@link dev.weir.spring.properties.WeirPropertiesValidator}), every problem named by its property
 * path; and the record of rule changes that every runtime source of rules shares
 * ({@link dev.weir.spring.properties.RuleChangeLog}: log and audit event). Depends on the engine,
 * Spring Boot's binding and Spring's event publisher only (the actuator's audit event, optionally):
 * the auto-configurations and the actuator endpoint use it, never the other way round.
 */
@NullMarked
package dev.weir.spring.properties;

import org.jspecify.annotations.NullMarked;
