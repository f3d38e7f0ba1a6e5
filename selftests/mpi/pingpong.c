// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong - the MPI program of selftests/middleware_mpi.sh: two ranks
 * bounce a 64 KiB buffer 20 times (with both ranks busy-polling the 2-CPU
 * guest, a round trip takes 60-100 ms); rank 0 checks every byte it gets
 * back.  Built by selftests/Makefile with Open MPI's mpicc.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	static unsigned char buf[65536];
	int rank, i, n, iters = 20, bad = 0;
	char host[MPI_MAX_PROCESSOR_NAME];
	double t;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Get_processor_name(host, &n);
	printf("rank %d on %s\n", rank, host);
	t = MPI_Wtime();
	for (i = 0; i < iters; i++) {
		if (rank == 0) {
			memset(buf, i & 0xff, sizeof(buf));
			MPI_Send(buf, sizeof(buf), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			memset(buf, 0, sizeof(buf));
			MPI_Recv(buf, sizeof(buf), MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			for (n = 0; n < (int)sizeof(buf); n++)
				bad += buf[n] != (i & 0xff);
		} else {
			MPI_Recv(buf, sizeof(buf), MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, sizeof(buf), MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	t = MPI_Wtime() - t;
	if (rank == 0)
		printf("pingpong %d x 64 KiB: %.1f us per round trip, %d bad bytes\n",
		       iters, t * 1e6 / iters, bad);
	MPI_Finalize();
	return bad != 0;
}
