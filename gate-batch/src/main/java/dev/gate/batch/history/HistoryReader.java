package dev.gate.batch.history;

import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.AbstractItemReader;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.io.Serializable;

/** Reads the range's items in order; its checkpoint is the index of the next item. */
@Named("historyReader")
@Dependent
public class HistoryReader extends AbstractItemReader {

    @Inject
    @BatchProperty
    String symbols;

    @Inject
    @BatchProperty
    String from;

    @Inject
    @BatchProperty
    String to;

    private HistoryRange range;
    private int next;

    @Override
    public void open(Serializable checkpoint) {
        range = HistoryRange.parse(symbols, from, to);
        next = checkpoint == null ? 0 : (Integer) checkpoint;
    }

    @Override
    public Object readItem() {
        return next < range.size() ? range.item(next++) : null;
    }

    @Override
    public Serializable checkpointInfo() {
        return next;
    }
}
