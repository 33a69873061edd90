# The build farm's makefile: SLICE/NSLICE pick this task's share of the translation units;
# every object and dependency file is written under a temporary name and renamed into the
# one shared obj/ directory, as compiler wrappers do.
SLICE ?= 0
NSLICE ?= 1
CC ?= cc
CFLAGS = -O1 -Isrc

UNITS := $(sort $(wildcard src/unit_*.c))
MINE := $(shell echo $(UNITS) | tr ' ' '\n' | awk -v s=$(SLICE) -v n=$(NSLICE) '(NR - 1) % n == s')
MY_OBJ := $(patsubst src/%.c,obj/%.o,$(MINE))

.PHONY: slice link clean-slice
slice: $(MY_OBJ)

obj/%.o: src/%.c src/common.h
	@mkdir -p obj
	$(CC) $(CFLAGS) -c -MMD -MF obj/$*.d.tmp$(SLICE) -o $@.tmp$(SLICE) $<
	@mv obj/$*.d.tmp$(SLICE) obj/$*.d
	@mv $@.tmp$(SLICE) $@

lib/libunits.a: $(patsubst src/%.c,obj/%.o,$(UNITS))
	@mkdir -p lib
	ar rcs $@.tmp $(wildcard obj/unit_*.o) && mv $@.tmp $@

bin/app: src/main.c lib/libunits.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $< lib/libunits.a

link: bin/app

clean-slice:
	rm -f $(MY_OBJ) $(MY_OBJ:.o=.d)

-include $(wildcard obj/*.d)
