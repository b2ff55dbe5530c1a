package dev.alkdev.operations.schema.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ECMA-262 patterns mean in Java what they mean in JavaScript. Each row was checked against the
 * ECMAScript semantics (with the u flag) where the two engines differ.
 */
class EcmaRegexTranslatorTest {

  private static boolean finds(String ecma, String input) {
    return Pattern.compile(EcmaRegexTranslator.toJava(ecma)).matcher(input).find();
  }

  @ParameterizedTest(name = "/{0}/u on \"{1}\" -> {2}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        // $ is the end of the input, never before a final line break
        "^abc$|abc|true",
        "^abc$|`abc\n`|false",
        // . stops at the four ECMA line terminators only (Java's also stops at U+0085)
        "^.$|`\u0085`|true",
        "^.$|`\u2028`|false",
        "^.$|`\n`|false",
        // \s and \S use ECMA's white space, which includes U+FEFF and U+00A0 but not U+0085
        "^\\s$|`\uFEFF`|true",
        "^\\s$|`\u00A0`|true",
        "^\\s$|`\u0085`|false",
        "^\\S$|`\u0085`|true",
        "^[^\\s]$|`\u2003`|false",
        "^[\\S]$|x|true",
        // \d \w \b are ASCII
        "^\\d$|\u0663|false",
        "^\\w$|é|false",
        "a\\b|aé|true",
        "a\\B|ab|true",
        "\\bé|é|false",
        // escapes Java reads differently
        "^\\v$|`\u000B`|true",
        "^\\v$|`\n`|false",
        "^\\cJ$|`\n`|true",
        "^\\cj$|`\n`|true",
        "^\\0$|`\u0000`|true",
        "^\\x41$|A|true",
        "^\\u{1F600}$|\uD83D\uDE00|true",
        "^\\uD83D\\uDE00$|\uD83D\uDE00|true",
        "^\\u0041$|A|true",
        "^[\\b]$|`\b`|true",
        // a supplementary character is one character, quantified as a whole
        "^\uD83D\uDC32{2}$|\uD83D\uDC32\uD83D\uDC32|true",
        "^.$|\uD83D\uDC32|true",
        // inside a class [ and && are literal, a dash next to a class escape is literal
        "^[[]$|[|true",
        "^[a&&b]$|&|true",
        "^[\\d-z]$|-|true",
        "^[a-]$|-|true",
        "^[\\]]$|]|true",
        // empty classes
        "^[]$||false",
        "^a[]|a|false",
        "^[^]$|`\n`|true",
        // Unicode properties, long and short names, scripts, binary properties
        "^\\p{Letter}+$|été|true",
        "^\\p{L}+$|été|true",
        "^\\p{Lu}$|É|true",
        "^\\p{digit}$|\u09EA|true",
        "^\\p{General_Category=Decimal_Number}$|7|true",
        "^\\p{Script=Greek}$|α|true",
        "^\\p{sc=Grek}$|a|false",
        "^\\P{L}$|1|true",
        "^[^\\P{L}]$|a|true",
        "^[^\\P{L}]$|1|false",
        "^\\p{ASCII}$|~|true",
        "^\\p{Any}$|\uFFFF|true",
        "^\\p{White_Space}$|`\u3000`|true",
        // groups and back-references
        "^(?<year>\\d{4})-\\k<year>$|2024-2024|true",
        "^(?<año>a)\\k<año>$|aa|true",
        "^(a)\\1$|aa|true",
        "^\\1(a)$|a|true",
        "^(a\\1)$|a|true",
        "(?<=\\$)\\d+|$42|true",
        "(?<!a)b|ab|false",
        "^(?=a)a$|a|true",
        // quantifiers, lazy, and braces that quantify nothing (web-compatibility grammar)
        "^a{2,3}$|aaaa|false",
        "^a{2,}?$|aaaa|true",
        "^a{,2}$|a{,2}|true",
        "^\\{x}$|{x}|true",
        "^x{1}y$|xy|true",
        // identity escapes of punctuation
        "^\\/\\-\\_\\.$|/-_.|true",
      })
  void meansWhatEcmaMeans(String ecma, String input, boolean expected) {
    assertThat(finds(ecma, input == null ? "" : input)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "(?i)abc", // global flags
        "(?>a)", // atomic group
        "(?P<n>a)", // Python
        "(?#comment)",
        "a*+", // possessive
        "a**",
        "*a",
        "^*",
        "\\A",
        "\\z",
        "\\Z",
        "\\Q.\\E",
        "\\a",
        "\\e",
        "\\h",
        "\\R",
        "\\c1",
        "\\x4",
        "\\u12",
        "\\u{110000}",
        "\\01",
        "\\2(a)",
        "\\k<nope>(?<yes>a)",
        "(?<a>x)(?<a>y)",
        "[z-a]",
        "a{3,1}",
        "(a",
        "a)",
        "[a",
        "\\",
        "\\p{Emoji}",
        "\\p{letter}",
        "\\p{Script=Klingon}",
        "\\p{scx=Grek}",
        "\\p{L",
        "[\\B]",
        "[\\1]",
        "(?=a)*",
        "\\b+",
      })
  void refusesWhatIsNotEcma262(String ecma) {
    assertThatThrownBy(() -> EcmaRegexTranslator.toJava(ecma))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(at character ");
  }

  @Test
  void groupsNestMoreThanAnyRealPatternButNotWithoutBound() {
    String deepest = "(".repeat(200) + "a" + ")".repeat(200);

    assertThat(finds(deepest, "a")).isTrue();
    assertThatThrownBy(() -> EcmaRegexTranslator.toJava("(" + deepest + ")"))
        .hasMessageContaining("nested deeper than 200");
  }

  @Test
  void aReferenceToAGroupThatDidNotTakePartFailsUnlikeInEcma() {
    // The one known difference: ECMA matches the empty string here, Java fails the match.
    assertThat(finds("^(?:(a)|b)\\1c$", "bc")).isFalse();
  }
}
