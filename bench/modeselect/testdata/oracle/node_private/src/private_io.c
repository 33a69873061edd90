/* Writes SIZE bytes to PATH, reads them back and checks them. Exit 0 when they match. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3) return fprintf(stderr, "usage: private_io PATH SIZE\n"), 2;
  size_t size = strtoul(argv[2], NULL, 10);
  char* buf = malloc(size);
  char* back = malloc(size);
  for (size_t i = 0; i < size; ++i) buf[i] = (char)(i * 31 + 7);
  int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0 || write(fd, buf, size) != (ssize_t)size || close(fd) != 0) return perror(argv[1]), 1;
  fd = open(argv[1], O_RDONLY);
  if (fd < 0 || read(fd, back, size) != (ssize_t)size || close(fd) != 0) return perror(argv[1]), 1;
  return memcmp(buf, back, size) != 0;
}
