/**
 * Where rules come from besides {@code application.yml}, and the one place that decides which
 * source wins ({@link dev.weir.spring.rules.RuleSources}): the Sentinel rule files, the rule file
 * ({@code weir.rules.file}), and rules written through the {@code weir} endpoint (saved to the
 * rule file with {@code weir.rules.write-back}). Files are read with the property binding and the
 * validator of {@code dev.weir.spring.properties}, watched by one daemon thread, and re-applied when
 * they change. Uses the property model only.
 */
@NullMarked
package dev.weir.spring.rules;

import org.jspecify.annotations.NullMarked;
