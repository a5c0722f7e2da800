package dev.weir.spring.async

import dev.weir.BlockException
import dev.weir.annotation.RateLimited

/** A bean whose guarded suspend function names a suspend blockHandler of the wrong signature. */
open class SuspendingService {

    @RateLimited("kotlin.suspend", blockHandler = "blocked")
    open suspend fun call(id: String): String = "done:$id"

    /** Takes an Int where call takes a String: no match. */
    open suspend fun blocked(id: Int, refusal: BlockException): String = "blocked:$id"
}

/** A bean with a guarded private function, which no proxy sees. */
open class PrivateSuspendingService {

    open suspend fun call(): String = hidden()

    @RateLimited("kotlin.private")
    private suspend fun hidden(): String = "hidden"
}

/** A bean whose guarded Flow function sets a settle expression, which a Flow cannot answer. */
open class SettledFlowService {

    @RateLimited("kotlin.flowSettle", settle = "#result")
    open fun numbers(): kotlinx.coroutines.flow.Flow<Int> = kotlinx.coroutines.flow.flowOf(1, 2)
}

/** A bean with a guarded inline function: final, and copied into its callers. */
open class InlineService {

    @RateLimited("kotlin.inline")
    @Suppress("NOTHING_TO_INLINE")
    inline fun twice(x: Int): Int = x * 2
}

/** A bean with a guarded function that is not open (Kotlin's default): no subclass proxy can override it. */
open class ClosedFunctionService {

    @RateLimited("kotlin.closed")
    suspend fun call(): String = "closed"
}

/** A bean whose companion object has a guarded function: the companion is no bean, no proxy sees it. */
open class CompanionService {

    open fun call(): String = helper()

    companion object {
        @RateLimited("kotlin.companion")
        fun helper(): String = "helper"
    }
}
