package dev.alkdev.operations.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BearerChallengeTest {

  @Test
  void readsTheBearerParameters() {
    BearerChallenge challenge =
        BearerChallenge.parse(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:read mcp:write\","
                + " resource_metadata=\"https://x.example/.well-known/oauth-protected-resource/mcp\"");
    assertThat(challenge.get("error")).contains("insufficient_scope");
    assertThat(challenge.get("scope")).contains("mcp:read mcp:write");
    assertThat(challenge.get("resource_metadata"))
        .contains("https://x.example/.well-known/oauth-protected-resource/mcp");
  }

  @Test
  void skipsOtherSchemesAndReadsTokensQuotesAndEscapes() {
    BearerChallenge challenge =
        BearerChallenge.parse(
            "Basic realm=\"x\", Bearer realm=api, error_description=\"say \\\"no\\\"\","
                + " Negotiate");
    assertThat(challenge.get("realm")).contains("api");
    assertThat(challenge.get("error_description")).contains("say \"no\"");
    assertThat(challenge.params()).hasSize(2);
  }

  @Test
  void nothingToReadIsEmpty() {
    assertThat(BearerChallenge.parse(null).params()).isEmpty();
    assertThat(BearerChallenge.parse("").params()).isEmpty();
    assertThat(BearerChallenge.parse("Bearer").params()).isEmpty();
    assertThat(BearerChallenge.parse("Bearer scope=\"\"").get("scope")).isEmpty();
    assertThat(BearerChallenge.parse("Bearer ,,, =\"x\"").params()).isEmpty();
  }
}
