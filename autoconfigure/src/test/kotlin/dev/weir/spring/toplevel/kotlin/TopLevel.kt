package dev.weir.spring.toplevel.kotlin

import dev.weir.annotation.RateLimited

/** A top-level extension function: a static method of `TopLevelKt`, which no proxy ever sees. */
@RateLimited("kotlin.top-level")
fun String.shout(): String = uppercase()
