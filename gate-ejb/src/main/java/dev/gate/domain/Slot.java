package dev.gate.domain;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/**
 * A limit's hot state: the next beat slot, the cool-down after a vendor's "slow down", and the number of its last
 * send. Written only by the grant and the outcome transactions (explicit SQL under its row lock); read here.
 */
@Entity
@Table(name = "gate_slot")
public class Slot {

    @Id
    @Column(name = "limit_name", length = 64)
    private String limitName;

    @Column(name = "next_slot_at", nullable = false)
    private Instant nextSlotAt;

    @Column(name = "paused_until")
    private Instant pausedUntil;

    @Column(name = "cooldown_step", nullable = false)
    private int coolDownStep;

    @Column(name = "slowed_at")
    private Instant slowedAt;

    @Column(name = "slowed_by")
    private Short slowedBy;

    @Column(name = "slowed_program")
    private String slowedProgram;

    @Column(name = "slowed_call")
    private Long slowedCall;

    @Column(name = "success_run", nullable = false)
    private int successRun;

    @Column(name = "send_seq", nullable = false)
    private long sendSeq;

    // an adaptive limit's last cut (null: never cut)
    @Column(name = "adaptive_calls")
    private Integer adaptiveCalls;

    @Column(name = "adaptive_cut_at")
    private Instant adaptiveCutAt;

    // the vendor's own count as an outcome last reported it (VendorCount; all null: none)
    @Column(name = "vendor_after_unit")
    private Long vendorAfterUnit;

    @Column(name = "vendor_remaining")
    private Integer vendorRemaining;

    @Column(name = "vendor_reset_at")
    private Instant vendorResetAt;

    // who reported it: the program and the call (as a cool-down records who slowed it)
    @Column(name = "vendor_program")
    private String vendorProgram;

    @Column(name = "vendor_call")
    private Long vendorCall;

    protected Slot() {
        // for JPA
    }

    public String limitName() {
        return limitName;
    }

    public Instant nextSlotAt() {
        return nextSlotAt;
    }

    /** An adaptive limit's calls per window after its last cut; null when never cut. */
    public Integer adaptiveCalls() {
        return adaptiveCalls;
    }

    /** When an adaptive limit's rate was last cut, or null. */
    public Instant adaptiveCutAt() {
        return adaptiveCutAt;
    }

    /** The program whose outcome reported the vendor's last count (null: none). */
    public String vendorProgram() {
        return vendorProgram;
    }

    /** The call whose outcome reported the vendor's last count (null: none). */
    public Long vendorCall() {
        return vendorCall;
    }

    /** The vendor's last count while its reset is ahead of {@code now}; empty otherwise. */
    public java.util.Optional<dev.gate.rules.VendorCount> vendorCount(Instant now) {
        return vendorResetAt == null || !vendorResetAt.isAfter(now) ? java.util.Optional.empty()
                : java.util.Optional.of(new dev.gate.rules.VendorCount(vendorAfterUnit, vendorRemaining, vendorResetAt));
    }

    /** The number of the limit's latest send (unit). */
    public long sendSeq() {
        return sendSeq;
    }

    /** When the vendor last said "slow down" for this limit, or null. */
    public Instant slowedAt() {
        return slowedAt;
    }

    /** The status of that signal (429, 503), or null. */
    /** The program whose call's outcome started the last cool-down, or null. */
    public String slowedProgram() {
        return slowedProgram;
    }

    /** That call, or null. */
    public Long slowedCall() {
        return slowedCall;
    }

    public Integer slowedBy() {
        return slowedBy == null ? null : slowedBy.intValue();
    }

    /** The cool-down ladder's step: 0 when the vendor has not said "slow down" lately; up by one on each repeat. */
    public int coolDownStep() {
        return coolDownStep;
    }

    /** The end of the cool-down, if it is still running at {@code now}. */
    public Instant pausedUntil(Instant now) {
        return pausedUntil != null && pausedUntil.isAfter(now) ? pausedUntil : null;
    }
}
