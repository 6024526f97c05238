/* Writes a zip archive from the command line, for building the test FMUs (including the
 * malicious ones, whose entry names no archiver would write):
 *   cosimo_zip_writer OUT.zip NAME=FILE... NAME@LINK_TARGET...
 * NAME=FILE adds FILE's contents as entry NAME (any name, "../evil" included); NAME@TARGET adds
 * a Unix symbolic link NAME pointing at TARGET. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zip.h>

int main(int argc, char** argv) {
  int error = 0, k;
  zip_t* archive;
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUT.zip NAME=FILE|NAME@TARGET...\n", argv[0]);
    return 2;
  }
  remove(argv[1]);
  archive = zip_open(argv[1], ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (archive == NULL) {
    fprintf(stderr, "cannot create %s (libzip error %d)\n", argv[1], error);
    return 1;
  }
  for (k = 2; k < argc; ++k) {
    char name[1024];
    const char* eq = strchr(argv[k], '=');
    const char* at = strchr(argv[k], '@');
    const char* sep = eq != NULL ? eq : at;
    zip_source_t* source;
    zip_int64_t index;
    if (sep == NULL || (size_t)(sep - argv[k]) >= sizeof(name)) {
      fprintf(stderr, "bad entry '%s'\n", argv[k]);
      return 2;
    }
    memcpy(name, argv[k], (size_t)(sep - argv[k]));
    name[sep - argv[k]] = '\0';
    if (sep == eq) {
      source = zip_source_file(archive, sep + 1, 0, -1);
    } else {
      source = zip_source_buffer(archive, sep + 1, strlen(sep + 1), 0);
    }
    if (source == NULL) {
      fprintf(stderr, "cannot read '%s': %s\n", sep + 1, zip_strerror(archive));
      return 1;
    }
    index = zip_file_add(archive, name, source, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      fprintf(stderr, "cannot add '%s': %s\n", name, zip_strerror(archive));
      return 1;
    }
    if (sep == at) {
      zip_file_set_external_attributes(archive, (zip_uint64_t)index, 0, ZIP_OPSYS_UNIX,
                                       ((zip_uint32_t)(S_IFLNK | 0777)) << 16);
    }
  }
  if (zip_close(archive) != 0) {
    fprintf(stderr, "cannot write %s: %s\n", argv[1], zip_strerror(archive));
    return 1;
  }
  return 0;
}
