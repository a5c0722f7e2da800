package dev.weir.kotlin.internal

import dev.weir.Criticality
import dev.weir.Entry
import dev.weir.EntryType
import dev.weir.Resource
import dev.weir.Weir
import dev.weir.spring.reactive.ReactiveEntries
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.reactor.ReactorContext
import reactor.util.context.Context

/**
 * The request a coroutine serves in a Spring application: Spring hands a `suspend` controller's
 * coroutine the request's Reactor context as a [ReactorContext] element, where Weir's web filter
 * wrote the request's Weir context and criticality claim; [ReactiveEntries] reads them as it does
 * for guarded `Mono`s. Not API (Kotlin's `internal`, public to the JVM, in a package no baseline
 * covers). This object's code refers to the optional libraries, so it is loaded only
 * when [PRESENT] says they are on the classpath.
 */
internal object SpringRequests {

    /** Whether weir-spring-boot-autoconfigure, kotlinx-coroutines-reactor and Reactor are all present. */
    @JvmField
    val PRESENT: Boolean = present("dev.weir.spring.reactive.ReactiveEntries") &&
        present("kotlinx.coroutines.reactor.ReactorContext") && present("reactor.util.context.Context")

    fun enter(
        weir: Weir,
        resource: Resource,
        type: EntryType,
        permits: Int,
        criticality: Criticality,
        args: Array<out Any?>,
        context: CoroutineContext,
    ): Entry = ReactiveEntries.asyncEntry(
        weir, resource, type, permits, criticality, args, context[ReactorContext]?.context ?: Context.empty(),
    )

    private fun present(name: String): Boolean = try {
        Class.forName(name, false, SpringRequests::class.java.classLoader)
        true
    } catch (absent: ClassNotFoundException) {
        false
    } catch (absent: LinkageError) {
        false
    }
}
