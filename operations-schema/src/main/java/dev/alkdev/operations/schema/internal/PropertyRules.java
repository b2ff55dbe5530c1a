package dev.alkdev.operations.schema.internal;

import com.fasterxml.classmate.ResolvedType;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.OptBoolean;
import com.github.victools.jsonschema.generator.FieldScope;
import com.github.victools.jsonschema.generator.MemberScope;
import com.github.victools.jsonschema.generator.MethodScope;
import dev.alkdev.operations.schema.SchemaException;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Which properties of a Java type are required, which accept {@code null}, and what their defaults
 * are. The rule, documented in docs/schema-import.md:
 *
 * <ul>
 *   <li>{@code @JsonProperty(required = true)} or {@code isRequired = TRUE}: required; {@code
 *       isRequired = FALSE}: optional. These win over everything below.
 *   <li>A property with a {@code @JsonProperty(defaultValue = ...)} is optional: the default fills
 *       it in when it is missing.
 *   <li>{@code Optional}, {@code OptionalInt}/{@code Long}/{@code Double}, and anything annotated
 *       with an annotation named {@code Nullable} (any package, declaration or type-use) is
 *       optional.
 *   <li>Otherwise a record component is required (a record is constructed from all of them), and a
 *       bean property is required only when it is primitive (Jackson always writes it).
 *   <li>Getter-only properties (no field) are optional: they are written, never read.
 *   <li>An optional property of a reference type also accepts {@code null}, because that is how
 *       Jackson writes an absent value.
 * </ul>
 */
final class PropertyRules {
  private final JsonMapper mapper;

  PropertyRules(JsonMapper mapper) {
    this.mapper = mapper;
  }

  boolean isRequired(MemberScope<?, ?> member) {
    if (member.isFakeContainerItemScope()) {
      return false;
    }
    JsonProperty property = member.getAnnotationConsideringFieldAndGetter(JsonProperty.class);
    if (property != null) {
      if (property.required() || property.isRequired() == OptBoolean.TRUE) {
        return true;
      }
      if (property.isRequired() == OptBoolean.FALSE || !property.defaultValue().isEmpty()) {
        return false;
      }
    }
    if (isOptionalType(member.getDeclaredType()) || hasNullableAnnotation(member)) {
      return false;
    }
    if (member instanceof MethodScope) {
      return false;
    }
    return isRecordComponent(member) || member.getDeclaredType().isPrimitive();
  }

  /** {@code TRUE} to add {@code null} to the property's schema; never {@code FALSE} for items. */
  Boolean isNullable(MemberScope<?, ?> member) {
    if (member.isFakeContainerItemScope()) {
      return null;
    }
    if (member.getDeclaredType().isPrimitive()) {
      return Boolean.FALSE;
    }
    if (isOptionalType(member.getDeclaredType()) || hasNullableAnnotation(member)) {
      return Boolean.TRUE;
    }
    return !isRequired(member);
  }

  /**
   * The value of {@code @JsonProperty(defaultValue = ...)} as JSON of the property's type: text for
   * properties Jackson writes as strings, parsed JSON otherwise.
   *
   * @throws SchemaException when the default is not a value of the property's type
   */
  JsonNode defaultValue(MemberScope<?, ?> member) {
    if (member.isFakeContainerItemScope()) {
      return null;
    }
    JsonProperty property = member.getAnnotationConsideringFieldAndGetter(JsonProperty.class);
    if (property == null || property.defaultValue().isEmpty()) {
      return null;
    }
    String text = property.defaultValue();
    ResolvedType type = member.getType();
    Class<?> raw = type.getErasedType();
    if (raw.isEnum()) {
      for (Object constant : raw.getEnumConstants()) {
        if (((Enum<?>) constant).name().equals(text)) {
          return mapper.valueToTree(constant);
        }
      }
      return mapper.getNodeFactory().stringNode(text);
    }
    JacksonValueDefinitions.Kind kind = JacksonValueDefinitions.kindOf(mapper, type);
    if (kind == JacksonValueDefinitions.Kind.STRING) {
      return mapper.getNodeFactory().stringNode(text);
    }
    JsonNode parsed;
    try {
      parsed = mapper.readTree(text);
    } catch (JacksonException e) {
      parsed = null;
    }
    boolean fits =
        parsed != null
            && switch (kind) {
              case INTEGER -> parsed.isIntegralNumber();
              case NUMBER -> parsed.isNumber();
              case BOOLEAN -> parsed.isBoolean();
              default -> parsed.isContainer();
            };
    if (!fits) {
      throw new SchemaException(
          "@JsonProperty(defaultValue = \""
              + text
              + "\") on "
              + describe(member)
              + " is not a JSON "
              + kind.name().toLowerCase(java.util.Locale.ROOT)
              + " value for type "
              + type.getBriefDescription());
    }
    return parsed;
  }

  static boolean isOptionalType(ResolvedType type) {
    Class<?> raw = type.getErasedType();
    return raw == Optional.class
        || raw == OptionalInt.class
        || raw == OptionalLong.class
        || raw == OptionalDouble.class;
  }

  private static boolean isRecordComponent(MemberScope<?, ?> member) {
    return member.getRawMember() instanceof Field field
        && field.getDeclaringClass().isRecord()
        && !java.lang.reflect.Modifier.isStatic(field.getModifiers());
  }

  /**
   * Whether the property carries an annotation whose simple name is {@code Nullable}: JSpecify,
   * Jakarta, JSR-305, Checker Framework, Spring and others all use that name, so matching on it
   * needs none of them on the class path.
   */
  static boolean hasNullableAnnotation(MemberScope<?, ?> member) {
    List<Annotation> found = new ArrayList<>();
    Member raw = member.getRawMember();
    if (raw instanceof Field field) {
      collect(found, field, field.getAnnotatedType());
      Class<?> owner = field.getDeclaringClass();
      if (owner.isRecord()) {
        for (RecordComponent component : owner.getRecordComponents()) {
          if (component.getName().equals(field.getName())) {
            collect(found, component, component.getAnnotatedType());
            Method accessor = component.getAccessor();
            collect(found, accessor, accessor.getAnnotatedReturnType());
          }
        }
      } else if (member instanceof FieldScope fieldScope) {
        MethodScope getter = fieldScope.findGetter();
        if (getter != null) {
          Method method = getter.getRawMember();
          collect(found, method, method.getAnnotatedReturnType());
        }
      }
    } else if (raw instanceof Method method) {
      collect(found, method, method.getAnnotatedReturnType());
    }
    return found.stream().anyMatch(a -> a.annotationType().getSimpleName().equals("Nullable"));
  }

  private static void collect(List<Annotation> into, AnnotatedElement element, AnnotatedType type) {
    into.addAll(List.of(element.getAnnotations()));
    if (type != null) {
      into.addAll(List.of(type.getAnnotations()));
    }
  }

  private static String describe(MemberScope<?, ?> member) {
    return member.getDeclaringType().getErasedType().getName() + "." + member.getDeclaredName();
  }
}
