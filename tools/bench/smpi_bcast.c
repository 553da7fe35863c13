/* Broadcast times under SimGrid's SMPI, for tools/bench/smpi_compare (tools/bench/README.md,
 * "Side by side with SMPI"). Compiled with smpicc, run with smpirun:
 *
 *   smpicc -O2 tools/bench/smpi_bcast.c -o smpi_bcast
 *   smpirun -np P -platform FILE -hostfile HOSTS --cfg=smpi/bcast:ompi_pipeline ... \
 *       ./smpi_bcast mpi 1024 65536 ...
 *   smpirun -np P ... ./smpi_bcast binomial 1024 65536 ...
 *
 * ALGORITHM `mpi` calls MPI_Bcast (the algorithm SMPI runs is the one --cfg=smpi/bcast selects);
 * `binomial` is our own broadcast on Open MPI's binomial tree (ompi_coll_base_topo_build_bmtree,
 * the tree of collsim's bcast/binomial): a rank receives from its parent, then isends the whole
 * message to each child, children in increasing distance order (rank + 1, + 2, + 4, ...
 * relative to the root), and waits for all of them: Open MPI's generic tree broadcast with one
 * segment. Root 0.
 *
 * Timing, as collsim times a collective: every rank starts each size at one common simulated
 * date (each sleeps until it, sg_actor_sleep_until, instead of leaving a barrier at its own
 * time), a rank's finish is when its own call returns (MPI_Wtime, which is SMPI's simulated
 * clock), and the time is the last finish minus the start. The next start is agreed by an
 * allreduce of the last finish plus one simulated second, checked to be in the future on every
 * rank, so the network is idle when a size starts. The buffer is SMPI_SHARED_MALLOC: all ranks
 * share its pages and SMPI copies nothing, so memory does not grow with P times the size.
 *
 * Output (rank 0, standard output): a CSV header `algorithm,procs,bytes,time_s`, then one row
 * per size, times at full precision (%.17g). Bad arguments: one line on standard error, exit
 * status 2. */
#include <errno.h>
#include <mpi.h>
#include <simgrid/actor.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxSizes = 256 };

static void die(int rank, const char* problem, const char* what) {
  if (rank == 0)
    fprintf(stderr,
            "smpi_bcast: %s%s\nusage: smpirun ... smpi_bcast mpi|binomial BYTES [BYTES...] (at most %d sizes)\n",
            problem, what, kMaxSizes);
  MPI_Finalize();
  exit(2);
}

/* Open MPI's binomial tree rooted at 0 (ompi_coll_base_topo_build_bmtree): rank r's parent is r
 * without its highest set bit; its children are r + 2^k for every 2^k above r's highest bit
 * (the smallest first) while below size. */
static int binomial_parent(int rank) {
  int mask = 1;
  while (mask <= rank) mask <<= 1;
  return rank - (mask >> 1);
}

static int binomial_children(int rank, int size, int* children) {
  int mask = 1, n = 0;
  while (mask <= rank) mask <<= 1;
  for (; rank + mask < size; mask <<= 1) children[n++] = rank + mask;
  return n;
}

static void binomial_bcast(char* buffer, int bytes, MPI_Comm comm, MPI_Request* requests, int* children) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank != 0) MPI_Recv(buffer, bytes, MPI_BYTE, binomial_parent(rank), 0, comm, MPI_STATUS_IGNORE);
  const int n = binomial_children(rank, size, children);
  for (int c = 0; c < n; ++c) MPI_Isend(buffer, bytes, MPI_BYTE, children[c], 0, comm, &requests[c]);
  MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (argc < 3) die(rank, "needs an algorithm and at least one size", "");
  const int ours = strcmp(argv[1], "binomial") == 0;
  if (!ours && strcmp(argv[1], "mpi") != 0) die(rank, "unknown algorithm (mpi or binomial): ", argv[1]);
  const int count = argc - 2;
  if (count > kMaxSizes) die(rank, "too many sizes", "");
  long sizes[kMaxSizes];
  long largest = 1;
  for (int i = 0; i < count; ++i) {
    char* end = NULL;
    errno = 0;
    sizes[i] = strtol(argv[i + 2], &end, 10);
    if (errno != 0 || end == argv[i + 2] || *end != '\0' || sizes[i] < 1 || sizes[i] > 1L << 30)
      die(rank, "a size is a number of bytes from 1 to 2^30: ", argv[i + 2]);
    if (sizes[i] > largest) largest = sizes[i];
  }

  char* buffer = SMPI_SHARED_MALLOC((size_t)largest);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)size);
  int* children = malloc(sizeof(int) * (size_t)size);
  double finish[kMaxSizes], last[kMaxSizes];

  double start = 1.0; /* the first start: MPI_Init has taken no simulated time */
  double starts[kMaxSizes];
  for (int i = 0; i < count; ++i) {
    if (MPI_Wtime() >= start) {
      fprintf(stderr, "smpi_bcast: rank %d is late for the start of size %ld (%.17g >= %.17g)\n", rank, sizes[i],
              MPI_Wtime(), start);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    sg_actor_sleep_until(start);
    starts[i] = start;
    if (ours)
      binomial_bcast(buffer, (int)sizes[i], MPI_COMM_WORLD, requests, children);
    else
      MPI_Bcast(buffer, (int)sizes[i], MPI_BYTE, 0, MPI_COMM_WORLD);
    finish[i] = MPI_Wtime();
    double latest;
    MPI_Allreduce(&finish[i], &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    start = latest + 1.0;
  }
  MPI_Reduce(finish, last, count, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("algorithm,procs,bytes,time_s\n");
    for (int i = 0; i < count; ++i)
      printf("%s,%d,%ld,%.17g\n", ours ? "binomial" : "mpi", size, sizes[i], last[i] - starts[i]);
  }
  free(children);
  free(requests);
  SMPI_SHARED_FREE(buffer);
  MPI_Finalize();
  return 0;
}
