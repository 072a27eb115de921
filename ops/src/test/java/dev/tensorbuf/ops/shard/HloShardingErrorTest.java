package dev.tensorbuf.ops.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.text.TextFormatException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad sharding text: the position of the offending character and words that name the problem. */
class HloShardingErrorTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {devices=[1]0}                                  | 1  | non-maximal shardings must have more than one device assigned
            {replicated device=1}                           | 12 | replicated shardings should not have any devices assigned
            {maximal}                                       | 1  | maximal shardings should have exactly one device assigned
            {devices=[2,2]0,1,2}                            | 1  | the grid [2, 2] has 4 tiles but 3 devices are listed
            {devices=[2,2]0,1,2,2}                          | 1  | device 2 is listed twice
            {devices=[2,2]<=[8]}                            | 1  | the grid [2, 2] has 4 tiles but the iota [8] has 8 devices
            {devices=[2,2]<=[2,2]T(1,1)}                    | 1  | is not a permutation
            {devices=[2,2]<=[2,2]T(0,2)}                    | 25 | iota transpose entry 2 out of range [0, 2)
            {devices=[2,2]<=[2,2]}                          | 21 | expected 'T(' to start the iota transpose
            {devices=[2,0]<=[4]}                            | 1  | has a dimension of size 0
            {devices=[2,2]<=[4] last_tile_dims={auto}}      | 36 | expected a subgroup type
            {devices=[2]<=[2] last_tile_dims={manual, replicated}} | 18 | 2 subgroup dimensions but the tile grid [2] has 1
            {devices=[2,2]<=[4] last_tile_dim_replicate last_tile_dims={manual}} | 44 | last_tile_dim_replicate and last_tile_dims= together
            {replicated manual}                             | 12 | a sharding has one kind
            {devices=[2]0,-1}                               | 14 | device id must be >= 0
            {devices=[2]0,99999999999999999999}             | 14 | does not fit in 64 bits
            {devices=[2]0,١}                                | 14 | (U+0661 ARABIC-INDIC DIGIT ONE) is not an ASCII digit
            {tiles=[2]0,1}                                  | 1  | unknown attribute 'tiles='
            {replicated                                     | 11 | expected '}' to end the sharding opened at position 0
            {replicated} x                                  | 13 | expected end of input after the sharding
            {{replicated}, replicated}                      | 15 | expected '{' to start a tuple element's sharding
            {mesh['a'=2], [{'a'}]}                          | 1  | named shardings
            {manual shard_as 1 shard_like 2}                | 19 | a sharding has at most one
            {replicated metadata={op_name="a}}              | 21 | unterminated string in metadata
            {devices=[2]<=[2]T(0)}                          | 17 | unexpected 'T'
            """)
    void refusedAtPosition(String text, int position, String words) {
        TextFormatException e = assertThrows(TextFormatException.class, () -> HloSharding.parse(text.strip()));
        assertTrue(e.problem().contains(words), e.getMessage());
        assertEquals(position, e.position(), e.getMessage());
    }
}
