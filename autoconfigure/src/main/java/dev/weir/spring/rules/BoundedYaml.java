package dev.weir.spring.rules;

import dev.weir.spring.properties.InputLimits;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.reader.UnicodeReader;

/**
 * Parses YAML (and JSON, which is YAML) of a rule file or Sentinel file into SnakeYAML's node
 * graph within {@link InputLimits}, before anything expands it.
 *
 * <p>The parser itself is bounded by its options: at most {@link InputLimits#MAX_BYTES} code
 * points, {@link InputLimits#MAX_DEPTH} levels of nesting, {@link InputLimits#MAX_ALIASES} aliases
 * to lists and mappings, no key that contains itself. What it returns is a graph, not a tree: an
 * alias is the very node of its anchor, so that a "billion laughs" (each level a list of aliases to
 * the one before) is a few small nodes here. Whoever walks it as a tree, as Spring Boot's YAML loader
 * does when it flattens a document into properties, repeats an anchor's values at each alias, and
 * a chain of them multiplies. So {@link #check} measures the tree the graph stands for before
 * anyone walks it: its size and depth counted once per node, from the sizes of its children
 * (memoized), which costs time linear in the graph. Refused, each as a {@link YAMLException} with
 * the reason: a document whose aliases repeat more than {@link InputLimits#MAX_ALIASED_VALUES}
 * values, one whose aliases nest it deeper than {@link InputLimits#MAX_DEPTH}, and one where a
 * list or mapping contains itself.
 */
final class BoundedYaml {

  private BoundedYaml() {
  }

  /**
   * Returns the documents of {@code content}, UTF-8 or with a byte order mark, each checked.
   *
   * @throws YAMLException when the content is not YAML, or is beyond a limit (the message says which)
   */
  /**
   * What is wrong with content that the parser or the loader failed on, for a violation: the
   * parser's own message where it has one (a line and what it expected), else a description that
   * shows no Java internals (a value of a YAML tag, such as {@code !!binary}, that no rule holds
   * fails as a class cast deep in the loader).
   */
  static String problem(Throwable failure) {
    if (failure instanceof org.yaml.snakeyaml.error.YAMLException && failure.getMessage() != null) {
      return failure.getMessage();
    }
    if (failure instanceof StackOverflowError) {
      return "it nests too deeply to be read";
    }
    if (failure instanceof ClassCastException) {
      return "it holds a value no rule file holds (a YAML tag such as !!binary or !!set?)";
    }
    return failure.getMessage() != null ? failure.getMessage() : "it could not be read";
  }

  static List<Node> compose(byte[] content) {
    if (content.length > InputLimits.MAX_BYTES) {
      throw new YAMLException("it is over " + InputLimits.MAX_BYTES_TEXT);
    }
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(InputLimits.MAX_BYTES);
    options.setNestingDepthLimit(InputLimits.MAX_DEPTH);
    options.setMaxAliasesForCollections(InputLimits.MAX_ALIASES);
    options.setAllowRecursiveKeys(false);
    options.setAllowDuplicateKeys(false);
    List<Node> documents = new ArrayList<>();
    for (Node document : new Yaml(options).composeAll(new UnicodeReader(new ByteArrayInputStream(content)))) {
      if (document != null) {
        check(document);
        documents.add(document);
      }
    }
    return documents;
  }

  /** Refuses a document whose tree, aliases expanded, is too large or too deep, or infinite. */
  static void check(Node document) {
    Sizes sizes = new Sizes();
    Tree tree = sizes.of(document);
    if (tree.nodes - sizes.distinct > InputLimits.MAX_ALIASED_VALUES) {
      throw new YAMLException("its aliases (*name) repeat more than " + InputLimits.MAX_ALIASED_VALUES + " values");
    }
    if (tree.depth > InputLimits.MAX_DEPTH) {
      throw new YAMLException("its aliases (*name) nest it deeper than " + InputLimits.MAX_DEPTH + " levels");
    }
  }

  /** The size (nodes, counted with repetition) and depth of the tree under a node. */
  private record Tree(long nodes, int depth) {
  }

  /**
   * Measures subtrees, each node once. The recursion follows the graph: its depth is at most the
   * number of nodes on one path, and no node is on a path twice (that is the cycle refused), so it
   * is bounded by the depth the parser allows times the aliases it allows.
   */
  private static final class Sizes {
    private final Map<Node, Tree> measured = new IdentityHashMap<>();
    private final Map<Node, Boolean> open = new IdentityHashMap<>();
    long distinct;

    Tree of(Node node) {
      Tree known = measured.get(node);
      if (known != null) {
        return known;
      }
      if (open.put(node, Boolean.TRUE) != null) {
        throw new YAMLException("a list or mapping contains itself (through an alias, line "
            + (node.getStartMark().getLine() + 1) + ")");
      }
      long nodes = 1;
      int depth = 0;
      if (node instanceof SequenceNode sequence) {
        for (Node child : sequence.getValue()) {
          Tree tree = of(child);
          nodes = saturatedAdd(nodes, tree.nodes);
          depth = Math.max(depth, tree.depth);
        }
      } else if (node instanceof MappingNode mapping) {
        for (NodeTuple tuple : mapping.getValue()) {
          Tree key = of(tuple.getKeyNode());
          Tree value = of(tuple.getValueNode());
          nodes = saturatedAdd(nodes, saturatedAdd(key.nodes, value.nodes));
          depth = Math.max(depth, Math.max(key.depth, value.depth));
        }
      }
      open.remove(node);
      distinct++;
      Tree tree = new Tree(nodes, depth + 1);
      measured.put(node, tree);
      return tree;
    }

    private static long saturatedAdd(long a, long b) {
      long sum = a + b;
      return sum < 0 ? Long.MAX_VALUE : sum;
    }
  }
}
