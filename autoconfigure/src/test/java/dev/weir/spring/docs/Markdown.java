package dev.weir.spring.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of a Markdown page that the documentation checks read: fenced code blocks (with the line
 * before each, where a page names the source of a snippet or how its YAML is checked), headings and
 * their anchors as GitHub makes them, explicit HTML anchors, and links. Only the subset of Markdown
 * these pages use is understood: fences opened by three or more backticks or tildes (indented or
 * not), ATX headings ({@code ## Title}), inline links and images, reference definitions and
 * {@code href}/{@code src} attributes. Text inside fences and inline code is never read as a link
 * or heading.
 */
final class Markdown {

  /** A fenced code block: its info string's first word, its lines, and the page line it opens on (1-based). */
  record Fence(String language, List<String> lines, int line, String lineBefore) {

    /** The block's text, lines joined with a line break. */
    String text() {
      return String.join("\n", lines);
    }
  }

  /** A link or image target as written, and the page line it is on (1-based). */
  record Link(String target, int line) {
  }

  private static final Pattern FENCE = Pattern.compile("^(\\s*)(`{3,}|~{3,})(.*)$");
  private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern INLINE_CODE = Pattern.compile("(`+)(.+?)\\1");
  private static final Pattern INLINE_LINK = Pattern.compile("!?\\[((?:[^\\[\\]]|\\[[^\\[\\]]*])*)]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern REFERENCE = Pattern.compile("^ {0,3}\\[[^]]+]:\\s*<?(\\S+?)>?(?:\\s+\"[^\"]*\")?\\s*$");
  private static final Pattern HTML_TARGET = Pattern.compile("(?:href|src)\\s*=\\s*\"([^\"]+)\"");
  private static final Pattern OPEN_LINK_TEXT = Pattern.compile("(?<![\\\\])\\[[^\\]]*$");
  private static final Pattern LINK_TARGET_START = Pattern.compile("^[^\\[]*]\\(");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)\\s*=\\s*\"([^\"]+)\"");

  private final List<Fence> fences = new ArrayList<>();
  private final List<String> headings = new ArrayList<>();
  private final Set<String> anchors = new LinkedHashSet<>();
  private final List<Link> links = new ArrayList<>();
  private final List<String> unclosed = new ArrayList<>();

  private Markdown() {
  }

  /** Reads {@code text}, a whole page. */
  static Markdown parse(String text) {
    Markdown page = new Markdown();
    String[] lines = text.split("\n", -1);
    Map<String, Integer> seen = new HashMap<>();
    String previous = "";
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      Matcher open = FENCE.matcher(line);
      if (open.matches() && !(open.group(2).startsWith("`") && open.group(3).contains("`"))) {
        String marker = open.group(2);
        String language = open.group(3).strip().split("\\s+")[0].toLowerCase(Locale.ROOT);
        List<String> body = new ArrayList<>();
        int start = i + 1;
        boolean closed = false;
        for (i = i + 1; i < lines.length; i++) {
          String candidate = lines[i].strip();
          if (candidate.startsWith(marker) && candidate.chars().allMatch(c -> c == marker.charAt(0))) {
            closed = true;
            break;
          }
          body.add(lines[i]);
        }
        if (!closed) {
          page.unclosed.add("line " + start + ": a fence that is never closed");
        }
        page.fences.add(new Fence(language, body, start, previous));
        previous = "";
        continue;
      }
      String prose = INLINE_CODE.matcher(line).replaceAll("");
      Matcher heading = HEADING.matcher(line);
      if (heading.matches()) {
        String slug = slug(heading.group(2));
        int count = seen.merge(slug, 1, Integer::sum);
        page.headings.add(heading.group(2));
        page.anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
      }
      Matcher anchor = HTML_ANCHOR.matcher(prose);
      while (anchor.find()) {
        page.anchors.add(anchor.group(1));
      }
      for (Pattern pattern : List.of(INLINE_LINK, REFERENCE, HTML_TARGET)) {
        Matcher link = pattern.matcher(prose);
        while (link.find()) {
          page.links.add(new Link(link.group(link.groupCount()), i + 1));
        }
      }
      if (i + 1 < lines.length && OPEN_LINK_TEXT.matcher(prose).find()
          && LINK_TARGET_START.matcher(INLINE_CODE.matcher(lines[i + 1]).replaceAll("")).find()) {
        page.unclosed.add("line " + (i + 1) + ": a link broken across two lines (keep [text](target) on one line,"
            + " or it is not checked)");
      }
      if (!line.isBlank()) {
        previous = line;
      }
    }
    return page;
  }

  /**
   * The anchor GitHub gives a heading: its text as rendered (inline code, links and emphasis
   * reduced to their text), lower-cased, every character that is not a letter, digit, mark,
   * {@code _}, {@code -} or space removed, and each space turned into {@code -}.
   */
  static String slug(String heading) {
    String text = heading.replaceAll("!?\\[([^]]*)]\\([^)]*\\)", "$1").replace("`", "")
        .replaceAll("<[^>]+>", "").replace("*", "");
    StringBuilder out = new StringBuilder();
    text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
      if (c == ' ') {
        out.append('-');
      } else if (Character.isLetterOrDigit(c) || c == '_' || c == '-'
          || Character.getType(c) == Character.NON_SPACING_MARK || Character.getType(c) == Character.COMBINING_SPACING_MARK) {
        out.appendCodePoint(c);
      }
    });
    return out.toString();
  }

  List<Fence> fences() {
    return fences;
  }

  List<String> headings() {
    return headings;
  }

  Set<String> anchors() {
    return anchors;
  }

  List<Link> links() {
    return links;
  }

  /** Problems of the page's structure itself (a fence never closed, a link broken across lines). */
  List<String> structureProblems() {
    return unclosed;
  }
}
