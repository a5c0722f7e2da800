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
