// Makefiles: which sources a target is built from.
#include "modeselect/static/cmdline/makefile.h"

#include <catch2/catch.hpp>
#include <set>

namespace bb::modeselect {
namespace {

TEST_CASE("Makefile: variables, substitution references, pattern rules, recipes", "[modeselect]") {
  const char* text = R"MK(
# The solver and its tools.
CC := mpicc
SRCS = main.c io.c \
       halo.c
OBJS = $(SRCS:.c=.o)
FOBJS = $(patsubst %.f90,%.o,field.f90)
TOOLS = $(addprefix tools/,pack)

all: solver fsolver $(TOOLS)

solver: $(OBJS)
	$(CC) -o $@ $^

fsolver: $(FOBJS)
	mpif90 -o $@ $^

%.o: %.c
	$(CC) -c $<

tools/pack:
	$(CC) -O2 -o tools/pack tools/pack.c tools/common.c

ifdef DEBUG
CFLAGS += -g
endif
)MK";
  Makefile mk = ParseMakefile(text);
  CHECK(mk.default_target == "all");
  CHECK(mk.vars["OBJS"] == "$(SRCS:.c=.o)");
  std::set<std::string> files{"main.c", "io.c", "halo.c", "field.f90"};
  auto exists = [&](const std::string& p) { return files.count(p) > 0; };
  CHECK(MakeTargetSources(mk, "solver", exists) == std::vector<std::string>{"main.c", "io.c", "halo.c"});
  CHECK(MakeTargetSources(mk, "fsolver", exists) == std::vector<std::string>{"field.f90"});
  CHECK(MakeTargetSources(mk, "tools/pack", exists) == std::vector<std::string>{"tools/pack.c", "tools/common.c"});
  CHECK(MakeTargetSources(mk, "", exists) ==
        std::vector<std::string>{"main.c", "io.c", "halo.c", "field.f90", "tools/pack.c", "tools/common.c"});
  Makefile over = ParseMakefile("SRC ?= a.c\napp: $(SRC:.c=.o)\n", {{"SRC", "b.c"}});
  CHECK(MakeTargetSources(over, "app", [](const std::string& p) { return p == "b.c"; }) ==
        std::vector<std::string>{"b.c"});
}

}  // namespace
}  // namespace bb::modeselect
