package dev.gate.domain;

import dev.gate.api.CallClass;
import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;

/** A call's class as the line stores it: its rank (0 = INTERACTIVE), so that the line index orders by class. */
@Converter
public class CallClassRank implements AttributeConverter<CallClass, Short> {

    @Override
    public Short convertToDatabaseColumn(CallClass callClass) {
        return callClass == null ? null : (short) callClass.rank();
    }

    @Override
    public CallClass convertToEntityAttribute(Short rank) {
        return rank == null ? null : CallClass.ofRank(rank);
    }
}
