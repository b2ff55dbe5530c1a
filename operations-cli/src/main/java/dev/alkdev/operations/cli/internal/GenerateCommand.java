package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.cli.ExitCodes;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code ops generate LANGUAGE}: code from the operations' specs; Java for now. */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    subcommands = {GenerateJavaCommand.class},
    description = "Writes code from the specs of the loaded operations.")
final class GenerateCommand implements Callable<Integer> {
  @ParentCommand OpsCommand root;

  @Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(root.output().err());
    return ExitCodes.USAGE;
  }
}
