/* validation/testbed/fanout.c: when does each rank get its data? Run under tools/testbed, one rank
 * per node. All nodes of the testbed are namespaces of one machine, so CLOCK_MONOTONIC is one clock
 * for every rank (MPI_Wtime is not: Open MPI counts it from each process's MPI_Init).
 *
 *   fanout isend BYTES REPS   the root (rank 0) posts MPI_Isend of BYTES to ranks 1..P-1 at once,
 *                             in that order; each receiver (its MPI_Irecv posted before the
 *                             barrier) notes when its receive completes
 *   fanout bcast BYTES REPS   MPI_Bcast from rank 0 (the algorithm as forced by --mca
 *                             coll_tuned_bcast_algorithm); each rank notes when its call returns
 *   fanout stream BYTES REPS  rank 0 posts 1000 MPI_Isend of BYTES to rank 1, which has pre-posted
 *                             the receives, then waits for all; the time per message at the
 *                             sender and at the receiver (from the first post to the last arrival)
 *   fanout pingpong BYTES REPS  half the round trip of BYTES between ranks 0 and 1 (1000 trips)
 *
 * Prints CSV lines "mode,bytes,rep,rank,seconds": for isend and bcast, the time from the root's
 * start (just after a barrier) to the rank's completion; for stream, rank 0's and rank 1's time per
 * message; for pingpong, rank 0's half round trip. Two warm-up repetitions are not printed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { kWarmup = 2, kStream = 1000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, procs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: fanout isend|bcast|stream|pingpong BYTES REPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* mode = argv[1];
  const long bytes = atol(argv[2]);
  const int reps = atoi(argv[3]);
  char* buf = calloc((size_t)(bytes > 0 ? bytes : 1) * (strcmp(mode, "stream") == 0 ? kStream : 1), 1);
  MPI_Request* req = malloc(sizeof(MPI_Request) * (kStream > procs ? kStream : procs));
  double* all = malloc(sizeof(double) * (size_t)procs);
  for (int rep = -kWarmup; rep < reps; ++rep) {
    double t0 = 0, t = 0;
    if (strcmp(mode, "isend") == 0) {
      if (rank > 0) MPI_Irecv(buf, (int)bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req[0]);
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = now();
      if (rank == 0) {
        for (int p = 1; p < procs; ++p) MPI_Isend(buf, (int)bytes, MPI_BYTE, p, 7, MPI_COMM_WORLD, &req[p - 1]);
        MPI_Waitall(procs - 1, req, MPI_STATUSES_IGNORE);
      } else {
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
      }
      t = now();
    } else if (strcmp(mode, "bcast") == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = now();
      MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
      t = now();
    } else if (strcmp(mode, "stream") == 0) {
      if (rank == 1)
        for (int i = 0; i < kStream; ++i)
          MPI_Irecv(buf + (size_t)i * bytes, (int)bytes, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &req[i]);
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = now();
      if (rank == 0) {
        for (int i = 0; i < kStream; ++i)
          MPI_Isend(buf + (size_t)i * bytes, (int)bytes, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(kStream, req, MPI_STATUSES_IGNORE);
      } else if (rank == 1) {
        MPI_Waitall(kStream, req, MPI_STATUSES_IGNORE);
      }
      t = now();
    } else if (strcmp(mode, "pingpong") == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = now();
      for (int i = 0; i < kStream; ++i) {
        if (rank == 0) {
          MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
          MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
        }
      }
      t = now();
    } else {
      if (rank == 0) fprintf(stderr, "fanout: unknown mode '%s'\n", mode);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* isend, bcast: relative to the root's start; stream, pingpong: per message, own start. */
    double root_t0 = t0;
    MPI_Bcast(&root_t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double value = t - root_t0;
    if (strcmp(mode, "stream") == 0) value = (t - t0) / kStream;
    if (strcmp(mode, "pingpong") == 0) value = (t - t0) / kStream / 2;
    MPI_Gather(&value, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0 && rep >= 0) {
      int shown = procs;
      if (strcmp(mode, "stream") == 0) shown = 2;
      if (strcmp(mode, "pingpong") == 0) shown = 1;
      for (int p = 0; p < shown; ++p) printf("%s,%ld,%d,%d,%.9f\n", mode, bytes, rep, p, all[p]);
      fflush(stdout);
    }
  }
  free(all);
  free(req);
  free(buf);
  MPI_Finalize();
  return 0;
}
