/**
 * The code the documentation shows that belongs to no sample: each page's Java snippet is a tagged
 * region of a class here (or of the samples, or of another module's sources), so that it compiles
 * with the build, and, where it has behaviour worth keeping, a test beside it runs it.
 */
@NullMarked
package dev.weir.spring.docs.examples;

import org.jspecify.annotations.NullMarked;
