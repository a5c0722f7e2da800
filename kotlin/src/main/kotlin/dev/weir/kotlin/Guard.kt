package dev.weir.kotlin

import dev.weir.BlockException
import dev.weir.Criticality
import dev.weir.Entry
import dev.weir.EntryType
import dev.weir.Resource
import dev.weir.Weir
import dev.weir.kotlin.internal.SpringRequests
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.currentCoroutineContext

/** The arguments of a call that gives none: shared, as the engine never writes them. */
private val NO_ARGS: Array<out Any?> = arrayOf()

/**
 * Runs [block] as one guarded call of the resource named [resource]: the same as
 * `guard(resource(resource), ...)`, which see. Resolving the name is a map lookup per call; code
 * that guards the same resource often keeps its [Resource] handle ([Weir.resource]) and passes that.
 */
public suspend fun <T> Weir.guard(
    resource: String,
    permits: Int = 1,
    criticality: Criticality = Criticality.CRITICAL,
    entryType: EntryType = EntryType.OUT,
    args: Array<out Any?> = NO_ARGS,
    settle: ((T) -> Long)? = null,
    block: suspend () -> T,
): T = guard(resource(resource), permits, criticality, entryType, args, settle, block)

/**
 * Runs [block] as one guarded call of [resource], an [asynchronous entry][Resource.asyncEntry] of
 * this engine held while the block runs, on whatever threads its coroutine runs:
 *
 * - The entry is taken before [block] starts. A refusal throws the [BlockException] into the
 *   caller, and [block] never runs.
 * - It is released exactly once: when [block] returns ([Entry.close], after [settle]); when it
 *   throws a [CancellationException] (the coroutine was cancelled while suspended, a `withTimeout`
 *   expired), as [Entry.cancel] (completed in the statistics, never a failure; no circuit breaker
 *   counts it as a success or a failure); when it throws
 *   anything else, as a failure ([Entry.recordError], then [Entry.close]), the exception rethrown
 *   unchanged.
 * - [settle], when given, reads the call's real cost from the block's result, and the entry is
 *   [settled][Entry.settle] to it before it is closed: a call estimated at [permits] that cost more
 *   owes the rest, one that cost less gives it back (see `docs/cost-and-tokens.md`). What [settle]
 *   throws, and the [IllegalArgumentException] of a negative cost, is thrown to the caller after
 *   the entry is closed with its estimate kept: the block's result is then lost, so a settle that
 *   may find no cost should return the estimate instead.
 * - The entry is made as the coroutine's Reactor context says, when Spring put one there (a
 *   `suspend` controller of Spring WebFlux, with `weir-spring-boot-autoconfigure` and
 *   `kotlinx-coroutines-reactor` on the classpath): in the request's Weir context (its origin, for
 *   `limit-app` and authority rules), with [criticality] lowered by the request's claim
 *   (`weir.web.criticality-header`), or replaced by a `Criticality` written into that context.
 *   `withContext(Dispatchers.IO)` and the like keep it. Otherwise in the calling thread's context,
 *   with [criticality].
 *
 * @param resource the resource's handle, of this engine
 * @param permits the permits the call takes (its estimate, when it [settle]s), at least 1
 * @param criticality the call's own criticality; the less critical are refused first when a rule
 *   sheds load
 * @param entryType inbound or outbound (system rules count inbound calls)
 * @param args what per-key (hot-parameter) rules read, as [Resource.asyncEntry]'s arguments
 * @param settle the call's real cost, in permits, read from the block's result; null to keep [permits]
 * @param block the guarded work
 * @return what [block] returned
 * @throws BlockException when a rule refuses the call
 */
public suspend fun <T> Weir.guard(
    resource: Resource,
    permits: Int = 1,
    criticality: Criticality = Criticality.CRITICAL,
    entryType: EntryType = EntryType.OUT,
    args: Array<out Any?> = NO_ARGS,
    settle: ((T) -> Long)? = null,
    block: suspend () -> T,
): T {
    val entry = enter(this, resource, entryType, permits, criticality, args, currentCoroutineContext())
    val result = try {
        block()
    } catch (cancelled: CancellationException) {
        entry.cancel()
        throw cancelled
    } catch (failure: Throwable) {
        entry.recordError(failure)
        entry.close()
        throw failure
    }
    if (settle != null) {
        try {
            entry.settle(settle(result))
        } finally {
            entry.close()
        }
    } else {
        entry.close()
    }
    return result
}

private fun enter(
    weir: Weir,
    resource: Resource,
    type: EntryType,
    permits: Int,
    criticality: Criticality,
    args: Array<out Any?>,
    context: CoroutineContext,
): Entry = if (SpringRequests.PRESENT) {
    SpringRequests.enter(weir, resource, type, permits, criticality, args, context)
} else {
    resource.asyncEntry(type, permits, criticality, args)
}
