#include <iostream>
#include <string>
#include <vector>
#include <set>
#include <deque>
#include <map>
#include <algorithm>

using namespace std;

/**
 * A Skynet Revolution virus (Episodes 1 and 2) in C++, written as for CodinGame: paste it into
 * the puzzle's editor as it is, or let arena compile it with CodinGame's flags:
 *
 *     arena play skynet --bot virus=cg:bots/skynet_virus.cpp --bot agent=cg-ep2
 *
 * The strategy of bots/skynet_virus.py: cut a gateway link at the agent if there is one;
 * otherwise find, by a 0-1 breadth-first search from the agent in which stepping onto a node next
 * to a gateway costs nothing (the virus must answer that threat at once), the closest node with
 * two or more gateway links, and cut one of them; with none left, a gateway link of the closest
 * threatened node.
 **/

int n, l, e;
vector<set<int>> links;
vector<bool> gateway;

vector<int> gateway_links(int node)
{
    vector<int> found;
    for (int g : links[node]) {
        if (gateway[g]) found.push_back(g);
    }
    return found; // sorted: links are a set
}

pair<int, int> choose_cut(int agent)
{
    vector<int> near = gateway_links(agent);
    if (!near.empty()) return {agent, near[0]};
    map<int, int> dist;
    dist[agent] = 0;
    deque<int> queue = {agent};
    while (!queue.empty()) {
        int v = queue.front();
        queue.pop_front();
        for (int w : links[v]) {
            if (gateway[w]) continue;
            int d = dist[v] + (gateway_links(w).empty() ? 1 : 0);
            if (!dist.count(w) || d < dist[w]) {
                dist[w] = d;
                if (d == dist[v]) queue.push_front(w);
                else queue.push_back(w);
            }
        }
    }
    vector<int> threatened, doubles;
    for (auto& [v, d] : dist) {
        size_t k = gateway_links(v).size();
        if (k > 0) threatened.push_back(v);
        if (k >= 2) doubles.push_back(v);
    }
    vector<int>& pool = doubles.empty() ? threatened : doubles;
    if (!pool.empty()) {
        int best = *min_element(pool.begin(), pool.end(), [&](int a, int b) {
            int ka = gateway_links(a).size(), kb = gateway_links(b).size();
            if (dist[a] != dist[b]) return dist[a] < dist[b];
            if (ka != kb) return ka > kb;
            return a < b;
        });
        return {best, gateway_links(best)[0]};
    }
    for (int v = 0; v < n; v++) { // nothing reachable is threatened: any gateway link will do
        vector<int> g = gateway_links(v);
        if (!g.empty()) return {v, g[0]};
    }
    return {agent, *links[agent].begin()};
}

int main()
{
    cin >> n >> l >> e; cin.ignore();
    links.assign(n, {});
    gateway.assign(n, false);
    for (int i = 0; i < l; i++) {
        int n1, n2; // N1 and N2 defines a link between these nodes
        cin >> n1 >> n2; cin.ignore();
        links[n1].insert(n2);
        links[n2].insert(n1);
    }
    for (int i = 0; i < e; i++) {
        int ei; // the index of a gateway node
        cin >> ei; cin.ignore();
        gateway[ei] = true;
    }

    // game loop
    while (1) {
        int si; // The index of the node on which the Skynet agent is positioned this turn
        cin >> si; cin.ignore();
        if (!cin) return 0; // the match is over
        auto [c1, c2] = choose_cut(si);
        links[c1].erase(c2);
        links[c2].erase(c1);

        // Example: 3 4 are the indices of the nodes you wish to sever the link between
        cout << c1 << " " << c2 << endl;
    }
}
