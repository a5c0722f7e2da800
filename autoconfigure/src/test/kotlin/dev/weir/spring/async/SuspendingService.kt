package dev.weir.spring.async

import dev.weir.annotation.RateLimited

/** A bean with a guarded Kotlin suspend function, which Weir refuses at start. */
open class SuspendingService {

    @RateLimited("kotlin.suspend")
    open suspend fun call(id: String): String = "done:$id"
}
