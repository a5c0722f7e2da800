package dev.weir.spring.keys;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The arguments of a resource's calls as its key expressions see them: their names, in order, and
 * their declared types ({@code Object} where not known), which {@link KeyLanguage} uses to refuse,
 * when a rule is checked, what cannot work on them.
 *
 * @param names the names, in order
 * @param types the declared types, one per name
 */
public record KeyArguments(List<String> names, List<Class<?>> types) {

  /**
   * Copies the lists.
   *
   * @throws IllegalArgumentException when they differ in size
   */
  public KeyArguments {
    names = List.copyOf(names);
    types = List.copyOf(types);
    if (names.size() != types.size()) {
      throw new IllegalArgumentException(names.size() + " names and " + types.size() + " types");
    }
  }

  /** Arguments with these names, of types not known. */
  public static KeyArguments named(List<String> names) {
    List<Class<?>> types = new ArrayList<>(Collections.nCopies(names.size(), Object.class));
    return new KeyArguments(names, types);
  }
}
