package dev.weir.kotlin.docs

import dev.weir.Weir
import dev.weir.kotlin.guard

/** A model's answer: the summary and the tokens it cost. */
data class Summary(val text: String, val tokensUsed: Long)

/** A language model, the caller's own. */
fun interface Model {
    suspend fun summarize(text: String): Summary
}

// tag::guard[]
class Summaries(private val weir: Weir, private val model: Model) {

    // resolved once: each call then uses the handle
    private val tokens = weir.resource("llm.tokens")

    /** Takes 2 000 tokens of the budget up front, then settles to what the model reports. */
    suspend fun summarize(text: String, user: String): Summary =
        weir.guard(tokens, permits = 2_000, args = arrayOf(user), settle = { it.tokensUsed }) {
            model.summarize(text)
        }
}
// end::guard[]
