package dev.weir.kotlin.docs

import dev.weir.BlockException
import dev.weir.Ticker
import dev.weir.Weir
import dev.weir.rule.FlowRule
import dev.weir.rule.ParamFlowRule
import dev.weir.rule.RuleSet
import java.time.Duration
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

/** The Kotlin page's `guard` example does what the page says, on an engine whose time stands still. */
class SummariesTest {

    private val weir = Weir.builder().ticker(Ticker { 1L }).rules(
        RuleSet.of(
            FlowRule.builder("llm.tokens").count(10_000.0).interval(Duration.ofHours(1)).build(),
            ParamFlowRule.builder("llm.tokens").paramIndex(0).count(5_000.0).duration(Duration.ofHours(1)).build(),
        ),
    ).build()

    private val summaries = Summaries(weir) { text -> delay(1); Summary(text.take(3), tokensUsed = 1_234) }

    @Test
    fun eachCallIsChargedWhatTheModelReportsAndEachUserHasABudget(): Unit = runBlocking {
        assertThat(summaries.summarize("a long text", "ada").text).isEqualTo("a l")
        assertThat(weir.quotas("llm.tokens", "ada").map { it.remaining() }).containsExactlyInAnyOrder(8_766, 3_766)
        summaries.summarize("more", "ada")
        summaries.summarize("more", "ada")
        // ada's 5 000 tokens: 3 702 used, 1 298 left, less than the next estimate of 2 000
        assertThatThrownBy { runBlocking { summaries.summarize("more", "ada") } }.isInstanceOf(BlockException::class.java)
        assertThat(summaries.summarize("text", "bob").tokensUsed).isEqualTo(1_234)
    }
}
