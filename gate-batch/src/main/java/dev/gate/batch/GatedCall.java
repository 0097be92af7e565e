package dev.gate.batch;

import dev.gate.api.Outcome;
import jakarta.batch.runtime.context.JobContext;

import java.util.Optional;

/**
 * What a gated chunk step does for one item once the gate has granted it: one vendor call, and how the vendor
 * answered. A {@code @Named} bean; the step names it in its {@code gate.call} property.
 *
 * @param <I> the item read
 * @param <O> what the step writes for it
 */
public interface GatedCall<I, O> {

    /** One vendor call for {@code item}; the job's properties and ids are in {@code job}. */
    VendorAnswer<O> call(I item, JobContext job) throws Exception;

    /**
     * What an earlier execution of this job already fetched for {@code item} and kept, but did not write with a
     * checkpoint (its chunk was cut by a stop, a failure or a restart): the item is not fetched again. Empty by
     * default: a call that keeps nothing is made again for an item read again.
     */
    default Optional<O> kept(I item, JobContext job) throws Exception {
        return Optional.empty();
    }

    /**
     * With {@code gate.dedupeKey}, the item joined another caller's live call of the same key: that caller makes the
     * vendor call, this item shares its {@code outcome}. What the step writes then; by default nothing (null: the
     * item is counted as filtered, fetched once, by the other caller).
     */
    default O shared(I item, Outcome outcome, JobContext job) throws Exception {
        return null;
    }
}
