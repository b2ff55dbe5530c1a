package dev.alkdev.operations.codegen;

import com.palantir.javapoet.ClassName;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The names of the generated types, all in one package: unique, compared without letter case (so
 * that no two files differ only in case, which a case-insensitive file system would merge), and
 * never a name the generated code uses unqualified.
 */
final class TypeNames {
  /**
   * Names a generated type must not take. A type of the package named like a {@code java.lang} type
   * shadows it in every file of the package ({@code String}, {@code Override}), and one named like
   * an imported type clashes with the import; such a name gets a trailing {@code _}. The {@code
   * java.lang} names are those of Java 17 and 25, written out so that the output does not depend on
   * the JDK that runs the generator.
   */
  static final Set<String> RESERVED =
      Set.of(
          // What the generated code imports or names.
          "List",
          "Map",
          "JsonNode",
          "Flow",
          "Publisher",
          "CompletableFuture",
          "OperationContext",
          "Operation",
          "Namespace",
          "OperationType",
          "JsonProperty",
          "JsonInclude",
          "Include",
          "JsonIgnoreProperties",
          "JsonAnySetter",
          "JsonAnyGetter",
          // java.lang
          "AbstractMethodError",
          "Appendable",
          "ArithmeticException",
          "ArrayIndexOutOfBoundsException",
          "ArrayStoreException",
          "AssertionError",
          "AutoCloseable",
          "Boolean",
          "BootstrapMethodError",
          "Byte",
          "CharSequence",
          "Character",
          "Class",
          "ClassCastException",
          "ClassCircularityError",
          "ClassFormatError",
          "ClassLoader",
          "ClassNotFoundException",
          "ClassValue",
          "CloneNotSupportedException",
          "Cloneable",
          "Comparable",
          "Compiler",
          "Deprecated",
          "Double",
          "Enum",
          "EnumConstantNotPresentException",
          "Error",
          "Exception",
          "ExceptionInInitializerError",
          "Float",
          "FunctionalInterface",
          "IO",
          "IllegalAccessError",
          "IllegalAccessException",
          "IllegalArgumentException",
          "IllegalCallerException",
          "IllegalMonitorStateException",
          "IllegalStateException",
          "IllegalThreadStateException",
          "IncompatibleClassChangeError",
          "IndexOutOfBoundsException",
          "InheritableThreadLocal",
          "InstantiationError",
          "InstantiationException",
          "Integer",
          "InternalError",
          "InterruptedException",
          "Iterable",
          "LayerInstantiationException",
          "LinkageError",
          "Long",
          "MatchException",
          "Math",
          "Module",
          "ModuleLayer",
          "NegativeArraySizeException",
          "NoClassDefFoundError",
          "NoSuchFieldError",
          "NoSuchFieldException",
          "NoSuchMethodError",
          "NoSuchMethodException",
          "NullPointerException",
          "Number",
          "NumberFormatException",
          "Object",
          "OutOfMemoryError",
          "Override",
          "Package",
          "Process",
          "ProcessBuilder",
          "ProcessHandle",
          "Readable",
          "Record",
          "ReflectiveOperationException",
          "Runnable",
          "Runtime",
          "RuntimeException",
          "RuntimePermission",
          "SafeVarargs",
          "ScopedValue",
          "SecurityException",
          "SecurityManager",
          "Short",
          "StableValue",
          "StackOverflowError",
          "StackTraceElement",
          "StackWalker",
          "StrictMath",
          "String",
          "StringBuffer",
          "StringBuilder",
          "StringIndexOutOfBoundsException",
          "SuppressWarnings",
          "System",
          "Thread",
          "ThreadDeath",
          "ThreadGroup",
          "ThreadLocal",
          "Throwable",
          "TypeNotPresentException",
          "UnknownError",
          "UnsatisfiedLinkError",
          "UnsupportedClassVersionError",
          "UnsupportedOperationException",
          "VerifyError",
          "VirtualMachineError",
          "Void",
          "WrongThreadException");

  private final String packageName;
  private final Set<String> taken = new HashSet<>();

  TypeNames(String packageName) {
    this.packageName = packageName;
  }

  /**
   * A new type named after {@code base} (made a valid name first): {@code base}, else {@code
   * base2}, {@code base3}, ...; a reserved name gets {@code _} first.
   */
  ClassName allocate(String base) {
    String name = Names.type(base);
    if (RESERVED.contains(name)) {
      name = name + "_";
    }
    String candidate = name;
    for (int n = 2; !taken.add(candidate.toLowerCase(Locale.ROOT)); n++) {
      candidate = name + n;
    }
    return ClassName.get(packageName, candidate);
  }

  /**
   * The interface of a namespace: its PascalCase name, or with {@code Operations} after it when a
   * generated type (or a reserved name) has it already.
   */
  ClassName allocateInterface(String namespace) {
    String name = Names.type(namespace);
    if (RESERVED.contains(name) || taken.contains(name.toLowerCase(Locale.ROOT))) {
      name = name + "Operations";
    }
    return allocate(name);
  }
}
