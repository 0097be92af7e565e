package dev.gate.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The vendor the histories' programs call, with its own state: the judge of promise 1. Its accounts have their own
 * rules, written apart from the gate's: calls per sliding window, counted on the vendor's clock when each request
 * arrives, or per block of its calendar (java.time: a day from its reset time in its zone, cut into blocks of a length
 * from the day's start). A keyed limit's keys are accounts inside their parent's: a request counts in both. Another
 * client of an account takes some of its quota now and then. Each request is answered from that state: 200 with what
 * is left of the tightest rule, when that rule's quota is whole again (its block's end; for a sliding window, when the
 * units in it now, this request's included, have left it) and the rule's calls (as RateLimit headers would say), or
 * 429 with a Retry-After when any rule is full (a refused request uses nothing). Every request is recorded with the call it was
 * for, and a second request for one call is flagged.
 */
final class HistoryVendor {

    /** A rule of an account: {@code calls} per sliding window of {@code ms}, or per block of its calendar. */
    record Rule(String name, int calls, long ms, ZoneId zone, LocalTime at) {

        static Rule sliding(String name, int calls, long ms) {
            return new Rule(name, calls, ms, null, null);
        }

        static Rule blocks(String name, int calls, long ms, ZoneId zone, LocalTime at) {
            return new Rule(name, calls, ms, zone, at);
        }

        boolean aligned() {
            return zone != null;
        }

        Rule withCalls(int newCalls) {
            return new Rule(name, newCalls, ms, zone, at);
        }

        /**
         * The block that holds {@code t}: its day starts at the reset time of its local date (a time a clock change
         * skips: the first instant after the gap; one it repeats: the later, standard-time one), and is cut into
         * blocks of the rule's length from there, the last cut at the next day's start.
         */
        Instant[] block(Instant t) {
            LocalDate date = t.atZone(zone).toLocalDate();
            Instant dayStart = dayStart(date);
            if (dayStart.isAfter(t)) {
                date = date.minusDays(1);
                dayStart = dayStart(date);
            }
            Instant nextDay = dayStart(date.plusDays(1));
            long into = Duration.between(dayStart, t).toMillis() / ms;
            Instant start = dayStart.plusMillis(into * ms);
            Instant end = start.plusMillis(ms);
            return new Instant[] {start, end.isAfter(nextDay) ? nextDay : end};
        }

        private Instant dayStart(LocalDate date) {
            return ZonedDateTime.of(date, at, zone).withLaterOffsetAtOverlap().toInstant();
        }

        /** Whether a unit received at {@code u} counts at {@code t} (no later than it). */
        boolean counts(Instant u, Instant t) {
            if (!aligned()) {
                return u.isAfter(t.minusMillis(ms));
            }
            return !u.isBefore(block(t)[0]);
        }

        /** When a unit received at {@code u} stops counting. */
        Instant leaves(Instant u) {
            return aligned() ? block(u)[1] : u.plusMillis(ms);
        }

        @Override
        public String toString() {
            return name + " " + calls + (aligned() ? " per block of " + ms + " ms in " + zone + " from " + at
                    : " per " + ms + " ms");
        }
    }

    /** Units an account received: when, how many, and from whom (the gate's call, or another client: -1). */
    record Use(Instant at, int units, long callId) {
        boolean gate() {
            return callId >= 0;
        }
    }

    /**
     * What the vendor answered: of its tightest rule, and of the tightest rule of the whole account (a key's parent's;
     * a plain account's own), as a vendor that reports the account-wide count would.
     */
    record Answer(int status, int remaining, long resetSeconds, int quota, Integer retryAfterSeconds,
                  int accountRemaining, long accountResetSeconds, int accountQuota) {
        boolean refused() {
            return status == 429;
        }
    }

    /** A rule of an account that was full. */
    record Full(String account, Rule rule) {
        @Override
        public String toString() {
            return account + "'s " + rule;
        }
    }

    /**
     * A request as the vendor took it: for the gate's call {@code callId} (or another client's: -1), its units, when,
     * its answer, and the rules that were full when refused (each with the account it is of).
     */
    record Request(String account, long callId, int units, Instant at, Answer answer, List<Full> fullRules) {
    }

    /** An account: its rules (an operator's re-pace follows the vendor's), its parent (null: none), what it used. */
    static final class Account {
        final String name;
        Account parent;
        volatile List<Rule> rules;
        final List<Use> used = new ArrayList<>();

        Account(String name, List<Rule> rules, Account parent) {
            this.name = name;
            this.rules = List.copyOf(rules);
            this.parent = parent;
        }
    }

    private final Map<String, Account> accounts = new HashMap<>();
    private final List<Request> requests = new ArrayList<>();
    private final Map<Long, Integer> perCall = new HashMap<>();

    /** Opens an account (a limit's; a key's inside its parent's), or answers the one of that name. */
    synchronized Account account(String name, List<Rule> rules, Account parent) {
        return accounts.computeIfAbsent(name, n -> new Account(n, rules, parent));
    }

    synchronized Account account(String name) {
        return accounts.get(name);
    }

    /** The vendor's new plan counts an account inside another's (a limit made keyed under it: its own calls too). */
    synchronized void within(String name, String parent) {
        accounts.get(name).parent = accounts.get(parent);
    }

    /** The vendor changed an account's plan: its first rule's calls (what an operator's re-pace follows). */
    synchronized void rePlan(String name, int calls) {
        Account a = accounts.get(name);
        List<Rule> rules = new ArrayList<>(a.rules);
        rules.set(0, rules.get(0).withCalls(calls));
        a.rules = List.copyOf(rules);
    }

    /** The gate's call {@code callId} sends its request of {@code units} to the account: the answer. */
    synchronized Answer request(String account, long callId, int units) {
        perCall.merge(callId, 1, Integer::sum);
        return take(accounts.get(account), callId, units, Instant.now());
    }

    /** Another client of the account uses {@code units} of it (refused, as any, when a rule is full). */
    synchronized Answer elsewhere(String account, int units) {
        return take(accounts.get(account), -1, units, Instant.now());
    }

    private Answer take(Account account, long callId, int units, Instant now) {
        List<Full> full = new ArrayList<>();
        long retryAfterMs = 0;
        int remaining = Integer.MAX_VALUE;
        long resetMs = 0;
        int quota = 0;
        int accountRemaining = Integer.MAX_VALUE;
        long accountResetMs = 0;
        int accountQuota = 0;
        for (Account a = account; a != null; a = a.parent) {
            for (Rule r : a.rules) {
                List<Use> in = a.used.stream().filter(u -> r.counts(u.at(), now)).toList();
                int used = in.stream().mapToInt(Use::units).sum();
                if (used + units > r.calls()) {
                    full.add(new Full(a.name, r));
                    retryAfterMs = Math.max(retryAfterMs, freesAfter(r, in, used + units - r.calls(), now));
                    continue;
                }
                int left = r.calls() - used - units;
                // when the quota is whole again: the block's end, or when this request's units leave the window
                long whole = r.aligned() ? Duration.between(now, r.block(now)[1]).toMillis() : r.ms();
                if (left < remaining) {
                    remaining = left;
                    quota = r.calls();
                    resetMs = whole;
                }
                if (a.parent == null && left < accountRemaining) {
                    accountRemaining = left;
                    accountQuota = r.calls();
                    accountResetMs = whole;
                }
            }
        }
        Answer answer;
        if (!full.isEmpty()) {
            answer = new Answer(429, 0, 0, 0, (int) Math.max(1, (retryAfterMs + 999) / 1000), 0, 0, 0);
        } else {
            for (Account a = account; a != null; a = a.parent) {
                a.used.add(new Use(now, units, callId));
            }
            answer = new Answer(200, remaining, Math.max(1, (resetMs + 999) / 1000), quota, null, accountRemaining,
                    Math.max(1, (accountResetMs + 999) / 1000), accountQuota);
        }
        requests.add(new Request(account.name, callId, units, now, answer, List.copyOf(full)));
        return answer;
    }

    /** How long until enough of a full rule's units leave it for {@code over} more units. */
    private static long freesAfter(Rule r, List<Use> in, int over, Instant now) {
        int freed = 0;
        for (Use u : in) { // oldest first: the order they came in
            freed += u.units();
            if (freed >= over) {
                return Duration.between(now, r.leaves(u.at())).toMillis();
            }
        }
        return r.aligned() ? Duration.between(now, r.block(now)[1]).toMillis() : r.ms();
    }

    synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    /** The calls the vendor received more than one request for. */
    synchronized List<Long> requestedTwice() {
        return perCall.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).sorted().toList();
    }

    /** What an account used, in the order it came (a copy). */
    synchronized List<Use> used(String account) {
        Account a = accounts.get(account);
        return a == null ? List.of() : List.copyOf(a.used);
    }
}
