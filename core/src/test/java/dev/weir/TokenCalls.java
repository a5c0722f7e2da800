package dev.weir;

/**
 * The example of docs/cost-and-tokens.md: a call to a language model whose cost, the tokens of its
 * answer, is known only after it. It takes the resource's learnt estimate before the call and
 * settles at the answer's tokens after it; {@code SettleEngineTest} runs it.
 */
final class TokenCalls {

  /** A model: answers a prompt, with the tokens the answer cost. */
  interface Model {
    Answer ask(String prompt);
  }

  record Answer(String text, long totalTokens) {
  }

  private final Resource llm;
  private final Model model;

  TokenCalls(Weir weir, Model model) {
    this.llm = weir.resource("llm");
    this.model = model;
  }

  String ask(String prompt) {
    // tag::settle[]
    long estimate = llm.costEstimate(1_000); // the recent p95 of settled costs; 1000 until one settled
    try (Entry entry = llm.entry(EntryType.OUT, (int) Math.min(estimate, Integer.MAX_VALUE))) {
      Answer answer = model.ask(prompt);
      entry.settle(answer.totalTokens()); // gives back what the answer did not use, or owes the rest
      return answer.text();
    }
    // end::settle[]
  }
}
