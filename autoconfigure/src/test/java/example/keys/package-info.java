/**
 * An application's own classes, outside {@code dev.weir}, for the key expression tests: Weir's
 * own packages are framework packages to key expressions, whose members they do not read.
 */
package example.keys;
