package dev.gate.domain;

import dev.gate.rules.CoolDownLadder;
import dev.gate.rules.Aging;
import dev.gate.rules.CalendarBlocks;
import dev.gate.rules.LimitOptions;
import dev.gate.rules.LineSize;
import dev.gate.rules.Pace;
import dev.gate.rules.ReceiptMargin;
import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;

import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A vendor's limit: its main rule, further rules, minimum spacing and cool-down ladder. */
@Entity
@Table(name = "gate_limit")
@NamedQuery(name = Limit.ALL, query = "SELECT l FROM Limit l WHERE l.templateName IS NULL ORDER BY l.name")
public class Limit {

    /** Every declared limit (no key of a keyed one), in name order. */
    public static final String ALL = "Limit.all";

    @Id
    @Column(name = "name", length = 64)
    private String name;

    @Column(name = "calls", nullable = false)
    private int calls;

    @Column(name = "window_ms", nullable = false)
    private long windowMs;

    // the main rule on the vendor's fixed blocks (both null: a sliding window)
    @Column(name = "aligned_zone", length = 64)
    private String alignedZone;

    @Column(name = "aligned_at")
    private LocalTime alignedAt;

    @Column(name = "min_interval_ms", nullable = false)
    private long minIntervalMs;

    @Column(name = "retry_floor_ms", nullable = false)
    private long retryFloorMs;

    @Column(name = "cooldown_ladder_ms", nullable = false)
    private Long[] coolDownLadderMs;

    @Column(name = "step_down_after", nullable = false)
    private int stepDownAfter;

    @Column(name = "max_cooldown_ms", nullable = false)
    private long maxCoolDownMs;

    // null: the default margin (ReceiptMargin)
    @Column(name = "receipt_margin_ms")
    private Long receiptMarginMs;

    @Column(name = "starving_after_ms")
    private Long starvingAfterMs;

    // both null: no starvation guard
    @Column(name = "aging_after_ms")
    private Long agingAfterMs;

    @Column(name = "aging_up_to")
    private Short agingUpTo;

    @Column(name = "fair_programs", nullable = false)
    private boolean fairPrograms;

    @Column(name = "burst", nullable = false)
    private int burst = 1;

    @Column(name = "adaptive", nullable = false)
    private boolean adaptive;

    // a template: its calls name a key, and each key is a limit of its own (Keys)
    @Column(name = "keyed", nullable = false)
    private boolean keyed;

    // a keyed limit's (and its keys') parent limit: each key's grant fits the parent's beat and window too
    @Column(name = "parent_name")
    private String parentName;

    @Column(name = "max_waiting", nullable = false)
    private int maxWaiting = LineSize.DEFAULT_MAX_WAITING;

    // null: up to max_waiting
    @Column(name = "max_waiting_per_program")
    private Integer maxWaitingPerProgram;

    @Column(name = "max_keys", nullable = false)
    private int maxKeys = LineSize.DEFAULT_MAX_KEYS;

    // a key's limit: its template (written by Keys, never by JPA)
    @Column(name = "template_name", insertable = false, updatable = false)
    private String templateName;

    // set by the database (clock_timestamp()): the gate's only clock
    @Column(name = "created_at", nullable = false, insertable = false, updatable = false)
    private Instant createdAt;

    @Column(name = "updated_at", nullable = false, insertable = false, updatable = false)
    private Instant updatedAt;

    @ElementCollection(fetch = FetchType.LAZY) // the slot loop reads limits by the dozen, never their rules
    @CollectionTable(name = "gate_limit_rule", joinColumns = @JoinColumn(name = "limit_name"))
    @OrderBy("windowMs")
    private List<Rule> rules = new ArrayList<>();

    protected Limit() {
        // for JPA
    }

    /** A new limit (its slot row comes with it, from the table's trigger). */
    public Limit(String name, Pace pace, LimitOptions options, Duration starvingAfter) {
        this.name = name;
        change(pace, options, starvingAfter);
    }

    /** New rules and options; the beat and the send log stay, so a change never starts with a burst. */
    /**
     * A new rule (calls per window); its options and more rules stay, but for a burst larger than the new calls,
     * which is lowered to them (a burst is at most the rule's calls: an operator slowing a limit down must not be
     * refused for it). Answers whether the burst was lowered.
     */
    public boolean rePace(Pace pace) {
        if (alignedZone != null) { // its blocks stay: the new window must be a day or a whole part of one
            pace = Pace.aligned(pace.calls(), new CalendarBlocks(pace.window(), ZoneId.of(alignedZone), alignedAt));
        }
        this.calls = pace.calls();
        this.windowMs = pace.window().toMillis();
        if (burst > calls) {
            burst = calls;
            return true;
        }
        return false;
    }

    public void change(Pace pace, LimitOptions options, Duration starvingAfter) {
        this.starvingAfterMs = starvingAfter == null ? null : starvingAfter.toMillis();
        this.calls = pace.calls();
        this.windowMs = pace.window().toMillis();
        this.alignedZone = pace.isAligned() ? pace.blocks().zone().getId() : null;
        this.alignedAt = pace.isAligned() ? pace.blocks().at() : null;
        this.minIntervalMs = options.minInterval().toMillis();
        this.retryFloorMs = options.coolDown().floor().toMillis();
        this.coolDownLadderMs = options.coolDown().steps().stream().map(Duration::toMillis).toArray(Long[]::new);
        this.stepDownAfter = options.coolDown().stepDownAfter();
        this.maxCoolDownMs = options.coolDown().longestAsk().toMillis();
        Duration margin = options.receiptMargin().declared();
        this.receiptMarginMs = margin == null ? null : margin.toMillis();
        this.agingAfterMs = options.aging() == null ? null : options.aging().after().toMillis();
        this.agingUpTo = options.aging() == null ? null : (short) options.aging().upToRank();
        this.fairPrograms = options.fairPrograms();
        this.burst = options.burst();
        this.adaptive = options.adaptive();
        this.keyed = options.keyed();
        this.parentName = options.parent();
        this.maxWaiting = options.size().maxWaiting();
        this.maxWaitingPerProgram = options.size().maxWaitingPerProgram();
        this.maxKeys = options.size().maxKeys();
        this.rules.clear();
        for (Pace r : options.moreRules()) {
            rules.add(new Rule(r));
        }
    }

    public String name() {
        return name;
    }

    /** How long a class may wait before the status page marks it as starving; null: the server's default. */
    public Duration starvingAfter() {
        return starvingAfterMs == null ? null : Duration.ofMillis(starvingAfterMs);
    }

    public Pace pace() {
        return alignedZone == null ? new Pace(calls, Duration.ofMillis(windowMs))
                : Pace.aligned(calls, new CalendarBlocks(Duration.ofMillis(windowMs), ZoneId.of(alignedZone),
                alignedAt));
    }

    public LimitOptions options() {
        return new LimitOptions(Duration.ofMillis(minIntervalMs),
                rules.stream().map(Rule::pace).toList(),
                new CoolDownLadder(Arrays.stream(coolDownLadderMs).map(Duration::ofMillis).toList(),
                        Duration.ofMillis(retryFloorMs), stepDownAfter, Duration.ofMillis(maxCoolDownMs)),
                ReceiptMargin.ofNullable(receiptMarginMs == null ? null : Duration.ofMillis(receiptMarginMs)),
                agingAfterMs == null ? null : new Aging(Duration.ofMillis(agingAfterMs), agingUpTo),
                fairPrograms, burst, adaptive, keyed, parentName,
                new LineSize(maxWaiting, maxWaitingPerProgram, maxKeys));
    }

    /** Whether this is a key's limit (its template's copy, written by Keys). */
    public boolean isKey() {
        return templateName != null;
    }

        public int calls() {
        return calls;
    }

    public long windowMs() {
        return windowMs;
    }
}
