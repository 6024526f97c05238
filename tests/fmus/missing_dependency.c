/* A shared library that the fmi2_missing_dep FMU links against but that its archive does not
 * ship (and that is not on the loader's path): loading that FMU must name this library. */
__attribute__((visibility("default"))) int CosimoMissingDependency(void) { return 42; }
