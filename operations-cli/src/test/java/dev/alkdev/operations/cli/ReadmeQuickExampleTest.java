package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The module README's quick example, run as written: each {@code $ ./ops ...} line is run and its
 * output compared with the lines under it (timestamps aside, and a line the README cuts with {@code
 * …} as the terminal would, by its start), and {@code $ echo $?} with the exit code.
 */
class ReadmeQuickExampleTest {
  private static final Pattern TIME = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z");

  @Test
  void theQuickExampleIsWhatOpsPrints() throws Exception {
    List<String> block = quickExample(Files.readAllLines(Path.of("README.md")));
    assertThat(block).as("the README's quick example").isNotEmpty();
    CliRun last = null;
    int commands = 0;
    for (int i = 0; i < block.size(); ) {
      String command = block.get(i++);
      assertThat(command).as("a command line").startsWith("$ ");
      List<String> expected = new ArrayList<>();
      while (i < block.size() && !block.get(i).startsWith("$ ")) {
        expected.add(block.get(i++));
      }
      while (!expected.isEmpty() && expected.get(expected.size() - 1).isBlank()) {
        expected.remove(expected.size() - 1);
      }
      if (command.equals("$ echo $?")) {
        assertThat(last).isNotNull();
        assertThat(expected).containsExactly(Integer.toString(last.code()));
        continue;
      }
      assertThat(command).startsWith("$ ./ops ");
      last = CliRun.run(words(command.substring("$ ./ops ".length())).toArray(String[]::new));
      commands++;
      List<String> actual = new ArrayList<>(lines(last.out()));
      actual.addAll(lines(last.err()));
      assertThat(actual).as(command).hasSameSizeAs(expected);
      for (int j = 0; j < expected.size(); j++) {
        String want = TIME.matcher(expected.get(j)).replaceAll("<time>");
        String got = TIME.matcher(actual.get(j)).replaceAll("<time>");
        if (want.endsWith("…")) {
          assertThat(got).as(command).startsWith(want.substring(0, want.length() - 1));
        } else {
          assertThat(got).as(command).isEqualTo(want);
        }
      }
    }
    assertThat(commands).isGreaterThanOrEqualTo(4);
  }

  private static List<String> quickExample(List<String> readme) {
    int start = readme.indexOf("## Quick example");
    List<String> block = new ArrayList<>();
    boolean inside = false;
    for (int i = start + 1; start >= 0 && i < readme.size(); i++) {
      String line = readme.get(i);
      if (line.startsWith("```")) {
        if (inside) {
          break;
        }
        inside = true;
      } else if (inside) {
        block.add(line);
      }
    }
    return block;
  }

  private static List<String> lines(String text) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
      lines.remove(lines.size() - 1);
    }
    return lines;
  }

  /** A command line's words as a POSIX shell splits them (single quotes only, as the README). */
  private static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (char c : line.toCharArray()) {
      if (c == '\'') {
        quoted = !quoted;
        any = true;
      } else if (c == ' ' && !quoted) {
        if (any) {
          words.add(word.toString());
          word.setLength(0);
          any = false;
        }
      } else {
        word.append(c);
        any = true;
      }
    }
    if (any) {
      words.add(word.toString());
    }
    return words;
  }
}
