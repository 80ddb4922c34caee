// kdapl-sum: adds up the summary lines of several test stages.
//
// Reads stdin and sums every line that is exactly "P passed, F failed"
// or "P passed, F failed, S skipped"; prints the total in the same form.
// Exit status 0 only if nothing failed and at least one line was seen.

#include "ktap.h"

#include <iostream>
#include <string>

int main()
{
	using namespace kdapl::report;

	Tally total;
	bool seen = false;
	for (std::string line; std::getline(std::cin, line);) {
		if (const auto tally = parse_tally_line(line)) {
			total += *tally;
			seen = true;
		}
	}
	if (!seen)
		std::cerr << "kdapl-sum: no 'N passed, N failed, N skipped' line in the input\n";
	std::cout << format_tally(total) << '\n';
	return seen && total.failed == 0 ? 0 : 1;
}
