package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The type information of a Floe type with its own explicit serializer, so that Flink never falls
 * back to Kryo or Java serialization for it (a job built with generic types disabled accepts it).
 */
final class SerializerTypeInfo<T> extends TypeInformation<T> {

  private static final long serialVersionUID = 1L;

  private final Class<T> type;
  private final TypeSerializer<T> serializer;

  SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
    this.type = requireNonNull(type, "type is null");
    this.serializer = requireNonNull(serializer, "serializer is null");
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return type;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<T> createSerializer(ExecutionConfig config) {
    return serializer.duplicate();
  }

  @Override
  public String toString() {
    return type.getSimpleName() + " (" + serializer.getClass().getSimpleName() + ")";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof SerializerTypeInfo<?> that
        && type.equals(that.type)
        && serializer.equals(that.serializer);
  }

  @Override
  public int hashCode() {
    return type.hashCode();
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof SerializerTypeInfo<?>;
  }
}
